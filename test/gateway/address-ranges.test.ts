// remote_address CIDR ranges through the gateway and the Hono middleware
// (docs/rules.md, "Address ranges"): allow lists, deny lists, the most
// specific range winning, IPv6 clients by their /56, and a range sharing
// one counter with share_threshold.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { Hono } from "hono";
import { beforeEach, describe, expect, it } from "vitest";
import type { Env } from "../../src/config.ts";
import { rateLimitOn } from "../../src/hono/middleware.ts";
import { compiled, gateway, testEnv } from "../support/app.ts";
import { drivenCounters, OBJECT_EPOCH } from "../support/driven-object.ts";

const perMinute = (requests_per_unit: number) => ({ unit: "minute", requests_per_unit });
const rules = {
  domain: "gw-ranges",
  descriptors: [
    { key: "remote_address", rate_limit: perMinute(2) },
    // Allow list: a node without a limit.
    { key: "remote_address", value: "10.0.0.0/8" },
    // Deny list, with a more specific range inside it let through at 3 a minute per address.
    { key: "remote_address", value: "203.0.113.0/24", rate_limit: perMinute(0) },
    { key: "remote_address", value: "203.0.113.128/25", rate_limit: perMinute(3) },
    { key: "remote_address", value: "2001:db8::/32", rate_limit: perMinute(0) },
    { key: "remote_address", value: "2001:db8:1::/48" },
    // One counter for a whole office range (one range per run of the table below).
    { key: "remote_address", value: "198.18.0.0/16", share_threshold: true, rate_limit: perMinute(4) },
    { key: "remote_address", value: "198.19.0.0/16", share_threshold: true, rate_limit: perMinute(4) },
  ],
  routes: [{ match: { path: "/*" }, descriptors: [[{ key: "remote_address" }]] }],
};

/** The statuses of `n` requests from `ip`. */
async function statuses(call: (ip: string) => Promise<Response>, ip: string, n: number): Promise<number[]> {
  const seen: number[] = [];
  for (let i = 0; i < n; i++) {
    const res = await call(ip);
    await res.arrayBuffer();
    seen.push(res.status);
  }
  return seen;
}

/**
 * One driven clock per test (docs/testing.md), for the isolate and the counter
 * objects: it stands still, so no window turns during a test. Each test starts
 * in a later hour than the last, as the objects are shared by the whole file.
 */
const clock = { at: OBJECT_EPOCH };
const now = () => clock.at;

describe.each([
  [
    "the gateway",
    () => {
      const call = gateway(rules, { COUNTERS: drivenCounters(testEnv.COUNTERS, now) }, { now });
      return (ip: string) => call("/r", { ip });
    },
  ],
  [
    "the Hono middleware",
    () => {
      const app = new Hono<{ Bindings: Env }>();
      const counters = drivenCounters(testEnv.COUNTERS, now);
      app.use("*", rateLimitOn({ rules: compiled(rules), counters: () => counters }, { now }));
      app.get("*", (c) => c.text("ok"));
      return async (ip: string) => {
        const ctx = createExecutionContext();
        const res = await app.fetch(new Request("http://app.test/r", { headers: { "cf-connecting-ip": ip } }), testEnv, ctx);
        await waitOnExecutionContext(ctx);
        return res;
      };
    },
  ],
])("address ranges through %s", (_name, make) => {
  let call: (ip: string) => Promise<Response>;
  // Each run of the table uses its own addresses and office range: both share the test's storage.
  const n = _name === "the gateway" ? 1 : 2;
  beforeEach(() => {
    clock.at = Math.ceil((clock.at + 1) / 3_600_000) * 3_600_000 + 2_500;
    call = make();
  });

  it("lets an allow-listed range through without a limit", async () => {
    expect(await statuses(call, `10.${n}.0.1`, 5)).toEqual([200, 200, 200, 200, 200]);
  });

  it("refuses a denied range, but the more specific range inside it counts per address", async () => {
    expect(await statuses(call, `203.0.113.${n}`, 1)).toEqual([429]);
    expect(await statuses(call, `203.0.113.${200 + n}`, 4)).toEqual([200, 200, 200, 429]);
    expect(await statuses(call, `203.0.113.${210 + n}`, 1)).toEqual([200]);
  });

  it("falls back to the key-only limit outside every range", async () => {
    expect(await statuses(call, `192.0.2.${n}`, 3)).toEqual([200, 200, 429]);
  });

  it("matches IPv6 clients by their /56", async () => {
    expect(await statuses(call, `2001:db8:ffff:${n}::1`, 1)).toEqual([429]);
    expect(await statuses(call, `2001:db8:1:${n}::1`, 5)).toEqual([200, 200, 200, 200, 200]);
    // Each run of the table in its own /56.
    expect(await statuses(call, `2001:db9:0:${n}00::1`, 3)).toEqual([200, 200, 429]);
  });

  it("counts a share_threshold range in one counter for every address in it", async () => {
    const base = n === 1 ? "198.18" : "198.19";
    expect(await statuses(call, `${base}.0.1`, 2)).toEqual([200, 200]);
    expect(await statuses(call, `${base}.7.9`, 1)).toEqual([200]);
    expect(await statuses(call, `${base}.200.3`, 2)).toEqual([200, 429]);
  });
});
