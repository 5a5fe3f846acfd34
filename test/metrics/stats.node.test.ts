// Envoy's per-limit stat arithmetic, and the bounded sums isolates keep.
import { describe, expect, it } from "vitest";
import type { Decision } from "../../src/algorithms/types.ts";
import { renderPrometheus } from "../../src/metrics/prometheus.ts";
import { SampleSums } from "../../src/metrics/samples.ts";
import { limitStats } from "../../src/metrics/stats.ts";

const allowed = (limit: number, remaining: number): Decision => ({
  allowed: true,
  limit,
  remaining,
  resetAfterMs: 1000,
  retryAfterMs: 0,
  effectiveWindowMs: 1000,
});
const rejected = (limit: number, remaining: number): Decision => ({
  allowed: false,
  limit,
  remaining,
  resetAfterMs: 1000,
  retryAfterMs: 500,
  effectiveWindowMs: 1000,
});

describe("limitStats (as envoyproxy/ratelimit's base limiter)", () => {
  it("counts hits within the limit, and those past 80 % as near_limit too", () => {
    expect(limitStats(allowed(10, 5), 1, true, false)).toEqual({ total_hits: 1, over_limit: 0, near_limit: 0, within_limit: 1, shadow_mode: 0 });
    expect(limitStats(allowed(10, 1), 1, true, false)).toEqual({ total_hits: 1, over_limit: 0, near_limit: 1, within_limit: 1, shadow_mode: 0 });
    // 7 → 10 crosses the near threshold (8): only the 2 hits past it are near.
    expect(limitStats(allowed(10, 0), 3, true, false)).toEqual({ total_hits: 3, over_limit: 0, near_limit: 2, within_limit: 3, shadow_mode: 0 });
  });

  it("splits a rejected multi-hit request into the near part and the over part", () => {
    // Counter at 8 of 10, 5 hits: 2 fill the limit (near), 3 are over.
    expect(limitStats(rejected(10, 2), 5, false, false)).toEqual({ total_hits: 5, over_limit: 3, near_limit: 2, within_limit: 0, shadow_mode: 0 });
    expect(limitStats(rejected(10, 0), 4, false, false)).toEqual({ total_hits: 4, over_limit: 4, near_limit: 0, within_limit: 0, shadow_mode: 0 });
  });

  it("counts shadow_mode hits as over_limit too", () => {
    expect(limitStats(rejected(1, 0), 1, false, true)).toEqual({ total_hits: 1, over_limit: 1, near_limit: 0, within_limit: 0, shadow_mode: 1 });
  });
});

describe("SampleSums", () => {
  it("adds to existing series and folds new ones past the cap into _overflow", () => {
    const sums = new SampleSums(2);
    sums.add({ name: "m", labels: [["d", "a"]], value: 1 });
    sums.add({ name: "m", labels: [["d", "b"]], value: 1 });
    sums.add({ name: "m", labels: [["d", "a"]], value: 2 });
    sums.add({ name: "m", labels: [["d", "c"]], value: 5 });
    sums.add({ name: "m", labels: [["d", "e"]], value: 1 });
    expect(sums.take()).toEqual([
      { name: "m", labels: [["d", "a"]], value: 3 },
      { name: "m", labels: [["d", "b"]], value: 1 },
      { name: "m", labels: [["d", "_overflow"]], value: 6 },
    ]);
    expect(sums.size).toBe(0);
  });
});

describe("renderPrometheus", () => {
  it("writes HELP and TYPE once per metric, escapes label values, and sorts series", () => {
    const text = renderPrometheus([
      { name: "ratelimit_service_rate_limit_total_hits", labels: [["domain", "b"]], value: 2 },
      { name: "ratelimit_service_rate_limit_total_hits", labels: [["domain", 'a"\\\n']], value: 1 },
    ]);
    expect(text).toBe(
      [
        "# HELP ratelimit_service_rate_limit_total_hits Hits counted against a rate limit.",
        "# TYPE ratelimit_service_rate_limit_total_hits counter",
        'ratelimit_service_rate_limit_total_hits{domain="a\\"\\\\\\n"} 1',
        'ratelimit_service_rate_limit_total_hits{domain="b"} 2',
        "",
      ].join("\n"),
    );
  });
});
