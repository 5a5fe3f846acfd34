import { describe, expect, it } from "vitest";
import { exactArithmeticOk } from "../../src/algorithms/index.ts";
import { leakyBucket } from "../../src/algorithms/leaky-bucket.ts";
import { counter, decision as d } from "./drive.ts";
import { bucketBound, largeScenarios, runProperty, smallScenarios, type Subject } from "./harness.ts";
import { bucketOracle } from "./oracles.ts";

// Holds 3, drains 2 per second: one request's worth every 500 ms.
const spec = { limit: 2, windowMs: 1000, burst: 3 };
const DAY = 86_400_000;

describe("leaky bucket (meter)", () => {
  it("starts empty: a fresh counter fills to 1 of 3, which drains in 500 ms", () => {
    expect(counter(leakyBucket, spec).hit(0)).toEqual(d(true, 2, 2, 500, 0));
  });

  it("fills to capacity, then rejects until a request's worth has drained", () => {
    const c = counter(leakyBucket, spec);
    expect([c.hit(0), c.hit(0), c.hit(0)]).toEqual([d(true, 2, 2, 500, 0), d(true, 2, 1, 1000, 0), d(true, 2, 0, 1500, 0)]);
    expect(c.hit(0)).toEqual(d(false, 2, 0, 1500, 500));
    // At 250 the level is 2.5: no whole slot free, half of one drains in 250 ms.
    expect(c.hit(250)).toEqual(d(false, 2, 0, 1250, 250));
    expect(c.hit(499).allowed).toBe(false);
    expect(c.hit(500)).toEqual(d(true, 2, 0, 1500, 0));
  });

  it("drains to empty and no further", () => {
    const c = counter(leakyBucket, spec);
    c.hit(0, 3);
    expect(c.hit(5_000, 0)).toEqual(d(true, 2, 3, 0, 0));
    expect(c.hit(5_000, 3)).toEqual(d(true, 2, 0, 1500, 0));
  });

  it("pours cost > 1 at once and waits until all of it fits", () => {
    const c = counter(leakyBucket, spec);
    expect(c.hit(0, 2)).toEqual(d(true, 2, 1, 1000, 0));
    expect(c.hit(100, 2)).toEqual(d(false, 2, 1, 900, 400));
    expect(c.hit(499, 2).allowed).toBe(false);
    expect(c.hit(500, 2)).toEqual(d(true, 2, 0, 1500, 0));
  });

  it("peeks with cost 0 without pouring", () => {
    const c = counter(leakyBucket, spec);
    c.hit(0);
    const before = c.state;
    expect(c.hit(100, 0)).toEqual(d(true, 2, 2, 400, 0));
    expect(c.state).toBe(before);
  });

  it("limit 0 and cost above capacity never fit", () => {
    expect(counter(leakyBucket, { limit: 0, windowMs: 1000, burst: 3 }).hit(7, 0)).toEqual(d(false, 0, 0, 0, Infinity));
    const c = counter(leakyBucket, spec);
    c.hit(0, 2);
    const before = c.state;
    expect(c.hit(0, 4)).toEqual(d(false, 2, 1, 1000, Infinity));
    expect(c.state).toBe(before);
  });

  it("retries exactly when the drain rate is fractional", () => {
    // 7 per day, capacity 1: 12 342 857.14… ms per request.
    const c = counter(leakyBucket, { limit: 7, windowMs: DAY, burst: 1 });
    c.hit(0);
    expect(c.hit(0).retryAfterMs).toBe(12_342_858);
    expect(c.hit(12_342_857).allowed).toBe(false);
    expect(c.hit(12_342_858).allowed).toBe(true);
  });

  it("idleAt is when the level reaches 0", () => {
    const c = counter(leakyBucket, spec);
    c.hit(1_000, 2);
    expect(leakyBucket.idleAt(c.state!, spec)).toBe(2_000);
  });

  it("treats a clock that steps back as standing still", () => {
    const c = counter(leakyBucket, spec);
    c.hit(1000, 3);
    expect(c.hit(800)).toEqual(d(false, 2, 0, 1700, 700));
  });

  const subject: Subject<unknown> = { algorithm: leakyBucket, oracle: bucketOracle, capacity: (l) => l.burst, bound: bucketBound };

  it("matches the exact bucket oracle on random traces (small numbers)", () => {
    runProperty(subject, smallScenarios({ bucket: true }), 400);
  });

  it("matches the exact bucket oracle on random traces (production-sized numbers)", () => {
    runProperty(subject, largeScenarios({ bucket: true, exactOk: (l) => exactArithmeticOk(l, "leaky_bucket") }), 100);
  });
});
