/**
 * count_when, route cost and cost_from_response through the gateway,
 * against the real local origin (`/status/NNN` answers that status,
 * `?tokens=N` reports `x-tokens-used: N`). `call` waits for the request's
 * background work, so each refund or charge is in before the next request.
 */
import { describe, expect, it } from "vitest";
import { gateway, testEnv, uniqueIp } from "../support/app.ts";
import { originRecords, uniqueTag } from "../support/origin.ts";

const ORIGIN = { ORIGIN_URL: testEnv.TEST_ORIGIN_URL, RATELIMIT_HEADERS: "draft-11" } as const;

function loginRules(algorithm: string, limit: number, status: unknown[] = [401, 403]) {
  return {
    domain: `gw-count-when-${algorithm}`,
    descriptors: [{ key: "login", rate_limit: { name: "failed-logins", unit: "hour", requests_per_unit: limit, algorithm, count_when: { status } } }],
    routes: [{ match: { methods: ["POST"], path: "/status/*" }, descriptors: [[{ key: "login", header: "x-user" }]] }],
  };
}

const post = (user: string, tag?: string) => ({ method: "POST", ip: uniqueIp(), headers: { "x-user": user, ...(tag ? { "x-test-tag": tag } : {}) } });

describe("count_when: only matching responses are charged", () => {
  for (const algorithm of ["fixed_window", "sliding_window_log", "sliding_window_counter", "token_bucket", "gcra"]) {
    it(`${algorithm}: successes cost nothing, failures count, and a spent key is refused before the origin`, async () => {
      const call = gateway(loginRules(algorithm, 2), ORIGIN);
      const user = uniqueIp();
      const tag = uniqueTag("count-when");
      for (let i = 0; i < 4; i++) expect((await call("/status/200", post(user, tag))).status).toBe(200);
      expect((await call("/status/401", post(user, tag))).status).toBe(401);
      expect((await call("/status/200", post(user, tag))).status).toBe(200);
      expect((await call("/status/403", post(user, tag))).status).toBe(403);
      const refused = await call("/status/200", post(user, tag));
      expect(refused.status).toBe(429);
      expect(refused.headers.get("RateLimit")).toContain('"failed-logins";r=0');
      // Four successes, two failures, one success between: seven reached the origin, the eighth did not.
      expect(await originRecords(tag)).toHaveLength(7);
    });
  }

  it("takes status classes and ranges", async () => {
    const call = gateway(loginRules("fixed_window", 1, ["5xx"]), ORIGIN);
    const user = uniqueIp();
    expect((await call("/status/404", post(user))).status).toBe(404);
    expect((await call("/status/503", post(user))).status).toBe(503);
    expect((await call("/status/200", post(user))).status).toBe(429);
    const ranged = gateway({ ...loginRules("fixed_window", 1, ["400-402"]), domain: "gw-count-when-range" }, ORIGIN);
    expect((await ranged("/status/403", post(user))).status).toBe(403);
    expect((await ranged("/status/402", post(user))).status).toBe(402);
    expect((await ranged("/status/200", post(user))).status).toBe(429);
  });

  it("in-flight requests hold their hit: no more than the limit are admitted at once", async () => {
    const call = gateway({ ...loginRules("sliding_window_log", 3), domain: "gw-count-when-flight" }, ORIGIN);
    const user = uniqueIp();
    // The isolate knows its rules first (another user): a fresh one's requests each go once its first rules check
    // has settled (src/isolate/live-rules.ts), one answered (and refunded) before the next had started.
    expect((await call("/status/200", post(uniqueIp()))).status).toBe(200);
    const statuses = await Promise.all(Array.from({ length: 12 }, () => call("/status/200", post(user)).then((r) => r.status)));
    expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(3);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThan(0);
    // All of them answered 200, so every hit came back.
    for (let i = 0; i < 3; i++) expect((await call("/status/401", post(user))).status).toBe(401);
    expect((await call("/status/401", post(user))).status).toBe(429);
  });

  it("a request refused by another limit gives its count_when hit back", async () => {
    const rules = loginRules("fixed_window", 2);
    rules.descriptors.push({ key: "ip", rate_limit: { name: "per-ip", unit: "hour", requests_per_unit: 0 } } as never);
    rules.routes[0].descriptors.push([{ key: "ip", header: "x-ip" } as never]);
    const call = gateway({ ...rules, domain: "gw-count-when-other" }, ORIGIN);
    const user = uniqueIp();
    const blocked = { method: "POST", headers: { "x-user": user, "x-ip": "a" } };
    for (let i = 0; i < 3; i++) expect((await call("/status/401", blocked)).status).toBe(429);
    for (let i = 0; i < 2; i++) expect((await call("/status/401", post(user))).status).toBe(401);
    expect((await call("/status/401", post(user))).status).toBe(429);
  });
});

describe("count_when beside a delayed window of the same key", () => {
  it("refunds the count_when window of a reserved slot", async () => {
    const rules = {
      domain: "gw-count-when-delay",
      descriptors: [
        {
          key: "login",
          rate_limits: [
            { name: "failed", unit: "hour", requests_per_unit: 2, algorithm: "fixed_window", count_when: { status: [401] } },
            { name: "paced", unit: "second", requests_per_unit: 100, algorithm: "gcra", burst: 100, on_limit: "delay", max_delay_ms: 1000 },
          ],
        },
      ],
      routes: [{ match: { path: "/status/*" }, descriptors: [[{ key: "login", header: "x-user" }]] }],
    };
    const call = gateway(rules, ORIGIN);
    const user = uniqueIp();
    for (let i = 0; i < 4; i++) expect((await call("/status/200", post(user))).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await call("/status/401", post(user))).status).toBe(401);
    expect((await call("/status/200", post(user))).status).toBe(429);
  });
});

const costRules = (cost: unknown, limit: number, extra: Record<string, unknown> = {}) => ({
  domain: `gw-cost-${JSON.stringify(cost).replace(/\W/g, "")}`,
  descriptors: [{ key: "remote_address", rate_limit: { name: "quota", unit: "hour", requests_per_unit: limit, algorithm: "fixed_window" } }],
  routes: [{ match: { path: "/*" }, descriptors: [[{ key: "remote_address" }]], cost, ...extra }],
});

describe("route cost", () => {
  it("a literal cost charges that many hits per request", async () => {
    const call = gateway(costRules(3, 10), ORIGIN);
    const ip = uniqueIp();
    const remaining: (string | null)[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await call("/", { ip });
      remaining.push(res.status === 429 ? "429" : res.headers.get("RateLimit"));
    }
    expect(remaining).toEqual([expect.stringContaining("r=7"), expect.stringContaining("r=4"), expect.stringContaining("r=1"), "429"]);
  });

  it("a header cost charges its number; missing or malformed values are a 400 naming the header", async () => {
    const call = gateway(costRules({ header: "X-Cost" }, 10), ORIGIN);
    const ip = uniqueIp();
    const ok = await call("/", { ip, headers: { "x-cost": "6" } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("RateLimit")).toContain("r=4");
    expect((await call("/", { ip, headers: { "x-cost": "5" } })).status).toBe(429);
    expect((await call("/", { ip, headers: { "x-cost": "0" } })).status).toBe(200);
    for (const bad of [undefined, "", "abc", "-1", "1.5", "4294967296", "99999999999"]) {
      const res = await call("/", { ip, headers: bad === undefined ? {} : { "x-cost": bad } });
      expect(res.status, String(bad)).toBe(400);
      expect(await res.text()).toContain("x-cost");
    }
  });

  it('body_bytes charges Content-Length, says qu="content-bytes" and forwards the body intact', async () => {
    const call = gateway(costRules({ body_bytes: true }, 100), ORIGIN);
    const ip = uniqueIp();
    const body = "x".repeat(60);
    // As a client sends it; a Request built here leaves Content-Length out of its headers.
    const sized = (text: string) => ({ method: "POST", ip, body: text, headers: { "content-length": String(text.length) } });
    const res = await call("/upload", sized(body));
    expect(res.status).toBe(200);
    expect(res.headers.get("RateLimit-Policy")).toContain('qu="content-bytes"');
    expect(res.headers.get("RateLimit")).toContain("r=40");
    expect(((await res.json()) as { body: string }).body).toBe(body);
    expect((await call("/upload", sized("y".repeat(41)))).status).toBe(429);
    expect((await call("/upload", sized("y".repeat(40)))).status).toBe(200);
    // No body declares 0 bytes, charged as 1 (no request is free without allow_zero): none of the 100 is left.
    expect((await call("/upload", { ip })).status).toBe(429);
  });

  it("body_bytes refuses a chunked body with 411", async () => {
    const call = gateway(costRules({ body_bytes: true }, 100), ORIGIN);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode("abc"));
        controller.close();
      },
    });
    const res = await call("/upload", { method: "POST", ip: uniqueIp(), body: stream, duplex: "half" } as RequestInit);
    expect(res.status).toBe(411);
    expect(await res.text()).toContain("Content-Length");
  });
});

describe("cost_from_response", () => {
  it("charges what the origin reports after answering; a spent key's next request is refused", async () => {
    const call = gateway(costRules(1, 100, { cost_from_response: { header: "x-tokens-used" } }), ORIGIN);
    const ip = uniqueIp();
    const tag = uniqueTag("tokens");
    const first = await call("/complete?tokens=60", { ip, headers: { "x-test-tag": tag } });
    expect(first.status).toBe(200);
    expect(first.headers.get("x-tokens-used")).toBe("60");
    // 60 spent: 40 left, so the next is allowed and reports more than is left.
    expect((await call("/complete?tokens=70", { ip, headers: { "x-test-tag": tag } })).status).toBe(200);
    expect((await call("/complete?tokens=1", { ip, headers: { "x-test-tag": tag } })).status).toBe(429);
    expect(await originRecords(tag)).toHaveLength(2);
  });

  it("a report below the reservation gives the difference back, a missing one keeps it", async () => {
    const call = gateway(costRules(10, 25, { cost_from_response: { header: "x-tokens-used" } }), ORIGIN);
    const ip = uniqueIp();
    expect((await call("/complete?tokens=0", { ip })).status).toBe(200);
    expect((await call("/complete?tokens=2", { ip })).status).toBe(200);
    expect((await call("/complete", { ip })).status).toBe(200); // keeps 10: 12 spent
    expect((await call("/complete?tokens=3", { ip })).status).toBe(200); // 15 spent
    expect((await call("/complete?tokens=3", { ip })).status).toBe(200); // 18 spent
    expect((await call("/complete?tokens=3", { ip })).status).toBe(429); // 10 more do not fit
  });
});
