/**
 * `on_limit: "queue"` in a Worker without the queue bindings (the default
 * wrangler.toml leaves them commented out): uploads of such rules are
 * refused with the path of each queue limit, and a request over a queue
 * limit that is in force anyway (bundled rules) gets a plain 429, never a 5xx.
 */
// @ts-nocheck

import { describe, expect, it } from "vitest";
import { gateway, uniqueIp } from "../support/app.ts";
import { envoyApi } from "../support/envoy.ts";
import { queueRules } from "./support.ts";

const limit = { unit: "minute", requests_per_unit: 1, algorithm: "gcra" };
let objects = 0;
const fresh = () => ({ objectName: `unbound-rules-${++objects}` });

const putRules = (api: ReturnType<typeof envoyApi>, rules: unknown) =>
  api.admin("/__ratelimit/rules", { method: "PUT", body: JSON.stringify(rules), headers: { "content-type": "application/json" } });

describe('on_limit "queue" without the QUEUE binding', () => {
  it("PUT /__ratelimit/rules answers 400 naming each queue limit's path and the missing binding, and changes nothing", async () => {
    const api = envoyApi({ domain: "unbound-before" }, { QUEUE: undefined }, fresh());
    const res = await putRules(api, queueRules(limit));
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    const body = await res.json<{ detail: string; errors: { path: string; message: string }[] }>();
    expect(body.detail).toContain("the rules in force are unchanged");
    expect(body.errors.map((e) => e.path)).toEqual(["$.descriptors[0].rate_limit.on_limit", "$.descriptors[1].rate_limit.on_limit"]);
    for (const e of body.errors) {
      expect(e.message).toMatch(/^on_limit "queue" needs the QUEUE queue binding, which this Worker does not have: uncomment/);
      expect(e.message).toContain("npx wrangler queues create floodgate-queued");
    }
    const current = await (await api.admin("/__ratelimit/rules")).json<{ version: number; source: string }>();
    expect(current).toMatchObject({ version: 0, source: "bundled" });
  });

  it("PUT takes the same rules when the binding is there, and rules without queue limits either way", async () => {
    const bound = envoyApi({ domain: "unbound-before" }, {}, fresh());
    expect((await putRules(bound, queueRules(limit))).status).toBe(200);
    const unbound = envoyApi({ domain: "unbound-before" }, { QUEUE: undefined }, fresh());
    const plain = { domain: "plain", descriptors: [{ key: "remote_address", rate_limit: { ...limit, on_limit: "reject" } }] };
    expect((await putRules(unbound, plain)).status).toBe(200);
  });

  for (const missing of ["QUEUE", "QUEUED"] as const) {
    it(`a request over a queue limit in force gets a plain 429 when ${missing} is missing`, async () => {
      const call = gateway(queueRules(limit), { [missing]: undefined });
      const ip = uniqueIp();
      expect((await call("/hooks", { ip, method: "POST", body: "a" })).status).toBe(200);
      const over = await call("/hooks", { ip, method: "POST", body: "b" });
      expect(over.status).toBe(429);
      expect(over.headers.get("content-type")).toBe("application/problem+json");
      expect(Number(over.headers.get("Retry-After"))).toBeGreaterThan(0);
      expect(over.headers.get("X-RateLimit-Decision")).toBeNull();
      expect(over.headers.get("Location")).toBeNull();
      expect(await over.json()).toMatchObject({ status: 429, policy: "webhooks", limit: 1, remaining: 0 });
    });
  }

  it("with the bindings, the same request is queued (202), so the 429 above is the missing binding's doing", async () => {
    const call = gateway(queueRules(limit));
    const ip = uniqueIp();
    expect((await call("/hooks", { ip, method: "POST", body: "a" })).status).toBe(200);
    const over = await call("/hooks", { ip, method: "POST", body: "b" });
    expect(over.status).toBe(202);
    await over.body?.cancel();
  });
});

describe('on_limit "queue" on a zone route without ORIGIN_URL', () => {
  it("answers 429: a delivery to the request's own URL would come back through this Worker", async () => {
    const call = gateway(queueRules(limit));
    const ip = uniqueIp();
    const base = "http://no-such-host.floodgate-tests.example.com";
    // The first fits and goes on to the route's origin (unreachable offline: 502); the second is over the limit.
    expect((await call("/hooks", { ip, base, method: "POST", body: "a" })).status).toBe(502);
    const over = await call("/hooks", { ip, base, method: "POST", body: "b" });
    expect(over.status).toBe(429);
    expect(over.headers.get("X-RateLimit-Decision")).toBeNull();
    expect(Number(over.headers.get("Retry-After"))).toBeGreaterThan(0);
  });
});
