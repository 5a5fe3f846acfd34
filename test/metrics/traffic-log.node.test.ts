// One isolate's pending dashboard traffic: its bounds (policies, buckets and
// minutes held between sends) and keys that the counters API reads back.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseCounterQuery } from "../../src/admin/descriptor-param.ts";
import type { StatDelta } from "../../src/metrics/stats.ts";
import { TrafficLog } from "../../src/metrics/traffic.ts";
import { ISOLATE_PENDING_BUCKETS, ISOLATE_PENDING_MINUTES, MAX_TRAFFIC_POLICIES, descriptorText } from "../../src/metrics/traffic-shape.ts";

const limited: StatDelta = { total_hits: 1, within_limit: 0, over_limit: 1, near_limit: 0, shadow_mode: 0 };
const policy = { name: "p", windowMs: 1000, shadow: false };
const T0 = 1_767_225_600_000;

describe("TrafficLog", () => {
  it("holds at most MAX_TRAFFIC_POLICIES policies between sends and counts the rest as dropped", () => {
    const log = new TrafficLog();
    for (let i = 0; i < MAX_TRAFFIC_POLICIES + 30; i++) log.record("api", `rule-${i}`, policy, limited, [{ key: "k", value: "v" }], T0);
    const batch = log.take();
    expect(batch.policies).toHaveLength(MAX_TRAFFIC_POLICIES);
    expect(batch.dropped).toBe(30);
    expect(log.take()).toEqual({ policies: [], failures: [], dropped: 0 });
  });

  it("keeps only the newest buckets and minutes of a policy when sends stop", () => {
    const log = new TrafficLog();
    for (let s = 0; s < 600; s += 5) log.record("api", "user", policy, limited, [{ key: "user", value: `u${s}` }], T0 + s * 1000);
    const [traffic] = log.take().policies;
    expect(traffic.buckets.map(([bucket]) => bucket)).toEqual(
      Array.from({ length: ISOLATE_PENDING_BUCKETS }, (_, i) => T0 / 10_000 + 60 - ISOLATE_PENDING_BUCKETS + i),
    );
    expect(traffic.minutes.map(([minute]) => minute)).toEqual(
      Array.from({ length: ISOLATE_PENDING_MINUTES }, (_, i) => T0 / 60_000 + 10 - ISOLATE_PENDING_MINUTES + i),
    );
  });

  it("writes keys the counters API reads back as the same descriptor", () => {
    const text = fc.string({ unit: "binary", maxLength: 12 });
    const entries = fc.array(fc.record({ key: text.filter((k) => k.length > 0), value: text }), { minLength: 1, maxLength: 4 });
    fc.assert(
      fc.property(entries, (list) => {
        // As the dashboard sends it (public/__ratelimit/dashboard/api.js): only what a query cannot carry escaped.
        const sent = [...descriptorText(list)].map((c) => (c <= " " || c === "\u007f" || c === "&" || c === "#" ? encodeURIComponent(c) : c)).join("");
        const search = new URL(`http://x/?domain=api&descriptor=${sent}`).search;
        expect(parseCounterQuery(search)).toEqual({ ok: true, domain: "api", entries: list });
      }),
      { numRuns: 500 },
    );
  });
});
