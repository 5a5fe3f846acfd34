/**
 * How the decision plans concurrency limits (docs/concurrency.md): a slot is
 * the object's to give and to free, so such a call is never answered from
 * the block cache nor pre-counted, and a caller without a slot to release
 * (the decision API) leaves concurrency limits out.
 */
import { describe, expect, it } from "vitest";
import { plan } from "../../src/limiter/plan.ts";
import { domainOf } from "../rules/helpers.ts";

const domain = domainOf({
  domain: "plan-concurrency",
  descriptors: [
    { key: "mixed", rate_limits: [{ concurrency: 2 }, { unit: "minute", requests_per_unit: 60, precount: { sync_ms: 100 } }] },
    { key: "only", rate_limit: { concurrency: 3 } },
  ],
});
const request = [{ domain, descriptors: [[{ key: "mixed", value: "a" }], [{ key: "only", value: "b" }]] }];
const slot = { holder: "isolate:1", leaseMs: 60_000 };
const shardKey = { k0: 1, k1: 2 };

describe("planning concurrency limits", () => {
  it("carries the slot, and never caches or pre-counts the call", () => {
    const { byObject } = plan(request, { slot }, true, shardKey);
    const calls = [...byObject.values()].flat();
    expect(calls).toHaveLength(2);
    for (const planned of calls) {
      expect(planned.call).toMatchObject({ slot });
      expect(planned.cacheable).toBe(false);
      expect(planned.syncMs).toBeUndefined();
    }
    expect(calls.map((planned) => planned.call.limits.map((limit) => limit.concurrency === true))).toEqual([[true, false], [true]]);
  });

  it("leaves concurrency limits out without a slot; the rate windows beside them are planned as before", () => {
    const { byObject, outcomes } = plan(request, {}, true, shardKey);
    const calls = [...byObject.values()].flat();
    expect(calls).toHaveLength(1);
    expect(calls[0].call).not.toHaveProperty("slot");
    expect(calls[0].call.limits.map((limit) => limit.windowMs)).toEqual([60_000]);
    expect(calls[0].syncMs).toBe(100);
    expect(outcomes[1].counter).toBeUndefined();
  });
});
