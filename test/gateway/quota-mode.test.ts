// quota_mode through the gateway (docs/rules.md, "quota_mode"): a request
// carrying two quotas passes while either has room, and its headers speak
// for the spent one; once both are spent it gets the usual 429.
import { describe, expect, it } from "vitest";
import { gateway, testEnv, uniqueIp } from "../support/app.ts";
import { drivenCounters, OBJECT_EPOCH } from "../support/driven-object.ts";

const quota = (value: string, perMinute: number) => ({
  key: "plan",
  value,
  // As in Envoy, quota_mode belongs on the node whose limit it is.
  descriptors: [{ key: "remote_address", quota_mode: true, rate_limit: { unit: "minute", requests_per_unit: perMinute } }],
});
const rules = {
  domain: "gw-quota",
  descriptors: [quota("a", 1), quota("b", 2)],
  routes: [
    {
      match: {},
      descriptors: [
        [{ key: "plan", value: "a" }, { key: "remote_address" }],
        [{ key: "plan", value: "b" }, { key: "remote_address" }],
      ],
    },
  ],
};

describe("quota_mode through the gateway", () => {
  // Objects and isolate on one clock standing at a minute's start: no window turns during the test.
  const now = () => OBJECT_EPOCH;
  const call = gateway(rules, { COUNTERS: drivenCounters(testEnv.COUNTERS, now) }, { now });

  it("admits while one quota has room, then refuses with Retry-After", async () => {
    const ip = uniqueIp();
    const first = await call("/q", { ip });
    // Both quotas count it: a has none left, b one.
    expect([first.status, first.headers.get("x-ratelimit-remaining")]).toEqual([200, "0"]);
    const second = await call("/q", { ip });
    // plan a is spent, plan b takes this one: admitted, reported by the spent quota.
    expect([second.status, second.headers.get("x-ratelimit-remaining"), second.headers.get("retry-after")]).toEqual([200, "0", null]);
    const third = await call("/q", { ip });
    expect(third.status).toBe(429);
    expect(Number(third.headers.get("retry-after"))).toBeGreaterThan(0);
    await Promise.all([first.arrayBuffer(), second.arrayBuffer(), third.arrayBuffer()]);
  });
});
