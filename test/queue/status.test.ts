/**
 * `GET /__ratelimit/queued/<id>`: only the client that queued a request
 * (the same descriptor values) or an admin may read it.
 */
import { describe, expect, it } from "vitest";
import { gateway, uniqueIp } from "../support/app.ts";
import { throwingCounters } from "../support/failing.ts";
import { ADMIN, queueGateway, queueRules, type QueuedView } from "./support.ts";

// One an hour: what is queued stays queued for the whole test.
const rules = queueRules({ unit: "hour", requests_per_unit: 1, algorithm: "token_bucket" });

describe("GET /__ratelimit/queued/<id>", () => {
  const call = queueGateway(rules, undefined);

  async function queueOne(init: Parameters<typeof call>[1], path = "/hook"): Promise<string> {
    await call(path, init);
    const response = await call(path, init);
    expect(response.status).toBe(202);
    return response.headers.get("Location")!;
  }

  it("the same client (same IP) reads it; another IP gets 403; an admin reads anything", async () => {
    const ip = uniqueIp();
    const location = await queueOne({ ip, method: "POST", body: "x" });
    const mine = await call(location, { ip });
    expect(mine.status).toBe(200);
    expect(mine.headers.get("Cache-Control")).toBe("no-store");
    expect(await mine.json<QueuedView>()).toMatchObject({ state: "queued", method: "POST", path: "/hook", attempts: 0 });

    const other = await call(location, { ip: uniqueIp() });
    expect(other.status).toBe(403);
    expect(other.headers.get("content-type")).toBe("application/problem+json");
    expect((await other.json<{ detail: string }>()).detail).toMatch(/Only the client that queued this request/);
    // The status is no secret from the admin, wherever it asks from.
    const admin = await call(location, { ip: uniqueIp(), headers: { authorization: `Bearer ${ADMIN}` } });
    expect(admin.status).toBe(200);
    expect(await admin.json<QueuedView>()).toMatchObject({ state: "queued" });
    expect((await call(location, { ip: uniqueIp(), headers: { authorization: "Bearer wrong" } })).status).toBe(403);
  });

  it("compares every descriptor value: an API key must match too, and its absence does not", async () => {
    const key = `key-${uniqueIp()}`;
    const location = await queueOne({ ip: uniqueIp(), headers: { "x-api-key": key } }, "/keyed/job");
    // Keyed by API key alone: any address with the key is the same client.
    expect((await call(location, { ip: uniqueIp(), headers: { "x-api-key": key } })).status).toBe(200);
    expect((await call(location, { ip: uniqueIp(), headers: { "x-api-key": `${key}x` } })).status).toBe(403);
    expect((await call(location, { ip: uniqueIp() })).status).toBe(403);
  });

  it("unknown or malformed ids are 404, never a 500", async () => {
    for (const path of [
      "/__ratelimit/queued/00000000-0000-4000-8000-000000000000",
      "/__ratelimit/queued/not-an-id",
      "/__ratelimit/queued/%00",
      `/__ratelimit/queued/${"a".repeat(5000)}`,
    ]) {
      const response = await call(path, { ip: uniqueIp() });
      expect(response.status, path).toBe(404);
      expect(response.headers.get("content-type")).toBe("application/problem+json");
    }
  });

  it("a malformed client address is a 400, as on any request", async () => {
    const location = await queueOne({ ip: uniqueIp() });
    expect((await call(location, { headers: { "cf-connecting-ip": "not-an-ip" } })).status).toBe(400);
  });

  it("without the queue bindings, a queue limit is a plain 429 (test/queue/unbound.test.ts), and the status endpoint a 404", async () => {
    const unbound = gateway(rules, { QUEUE: undefined, QUEUED: undefined });
    const ip = uniqueIp();
    expect((await unbound("/hook", { ip })).status).toBe(200);
    const response = await unbound("/hook", { ip });
    expect(response.status).toBe(429);
    expect(response.headers.get("X-RateLimit-Decision")).toBeNull();
    expect((await unbound("/__ratelimit/queued/00000000-0000-4000-8000-000000000000", { ip })).status).toBe(404);
  });

  it("a queue that refuses the message: 503 with Retry-After, never a 500", async () => {
    const failing = {
      send: async () => {
        throw new Error("queue unavailable");
      },
    };
    const down = gateway(rules, { QUEUE: failing as unknown as Queue });
    const ip = uniqueIp();
    expect((await down("/hook", { ip })).status).toBe(200);
    const response = await down("/hook", { ip, method: "POST", body: "x" });
    expect(response.status).toBe(503);
    expect(response.headers.get("Retry-After")).toBe("1");
    expect(await response.json()).toMatchObject({ status: 503, detail: "The request could not be queued; try again shortly." });
  });

  // Break tried: queueUnavailable() without the result's decision header (as the queue's own 503 was) → the first fails;
  // notQueued() answering tooManyRequests() instead of refusal() → the second fails.
  it("decided by the isolate alone (FAILURE_MODE=local), the queue's 503 and its 429 say so as every refusal does", async () => {
    const failing = {
      send: async () => {
        throw new Error("queue unavailable");
      },
    };
    const down = gateway(rules, { COUNTERS: throwingCounters, QUEUE: failing as unknown as Queue });
    const ip = uniqueIp();
    expect((await down("/hook", { ip })).headers.get("X-RateLimit-Decision")).toBe("local");
    const response = await down("/hook", { ip, method: "POST", body: "x" });
    expect(response.status).toBe(503);
    expect(response.headers.get("Retry-After")).toBe("1");
    expect(response.headers.get("X-RateLimit-Decision")).toBe("local");
    expect(await response.json()).toMatchObject({ type: "urn:floodgate:queue-unavailable", status: 503, retry_after: 1 });

    const unbound = gateway(rules, { COUNTERS: throwingCounters, QUEUE: undefined, QUEUED: undefined });
    const other = uniqueIp();
    await unbound("/hook", { ip: other });
    const refused = await unbound("/hook", { ip: other });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("X-RateLimit-Decision")).toBe("local");
  });
});
