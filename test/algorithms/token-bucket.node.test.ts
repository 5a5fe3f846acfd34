import { describe, expect, it } from "vitest";
import { exactArithmeticOk } from "../../src/algorithms/index.ts";
import { tokenBucket } from "../../src/algorithms/token-bucket.ts";
import { counter, decision as d } from "./drive.ts";
import { bucketBound, largeScenarios, runProperty, smallScenarios, type Subject } from "./harness.ts";
import { bucketOracle } from "./oracles.ts";

// 2 per second with room for 3: one token every 500 ms, starting full.
const spec = { limit: 2, windowMs: 1000, burst: 3 };
const YEAR = 31_536_000_000;

describe("token bucket", () => {
  it("starts full: a fresh counter has burst − 1 left and refills one token in 500 ms", () => {
    expect(counter(tokenBucket, spec).hit(0)).toEqual(d(true, 2, 2, 500, 0));
  });

  it("takes the whole burst at once, then rejects until a token refills", () => {
    const c = counter(tokenBucket, spec);
    expect([c.hit(0), c.hit(0), c.hit(0)]).toEqual([d(true, 2, 2, 500, 0), d(true, 2, 1, 1000, 0), d(true, 2, 0, 1500, 0)]);
    expect(c.hit(0)).toEqual(d(false, 2, 0, 1500, 500));
    expect(c.hit(499)).toEqual(d(false, 2, 0, 1001, 1));
    expect(c.hit(500)).toEqual(d(true, 2, 0, 1500, 0));
  });

  it("refills continuously but never beyond the burst", () => {
    const c = counter(tokenBucket, spec);
    c.hit(0, 3);
    // 250 ms is half a token: still 0 whole, a full one 250 ms later.
    expect(c.hit(250, 0)).toEqual(d(true, 2, 0, 1250, 0));
    expect(c.hit(10_000, 0)).toEqual(d(true, 2, 3, 0, 0));
  });

  it("charges cost > 1 at once and waits for all of it", () => {
    const c = counter(tokenBucket, spec);
    expect(c.hit(0, 2)).toEqual(d(true, 2, 1, 1000, 0));
    // Needs 2, has 1: one more token takes 500 ms.
    expect(c.hit(0, 2)).toEqual(d(false, 2, 1, 1000, 500));
    expect(c.hit(500, 2)).toEqual(d(true, 2, 0, 1500, 0));
  });

  it("peeks with cost 0 without consuming, returning the same state object", () => {
    const c = counter(tokenBucket, spec);
    expect(c.hit(0, 0)).toEqual(d(true, 2, 3, 0, 0));
    c.hit(0);
    const before = c.state;
    expect(c.hit(250, 0)).toEqual(d(true, 2, 2, 250, 0));
    expect(c.state).toBe(before);
  });

  it("limit 0 rejects everything forever, peeks included", () => {
    const zero = { limit: 0, windowMs: 1000, burst: 3 };
    expect(counter(tokenBucket, zero).hit(0)).toEqual(d(false, 0, 0, 0, Infinity));
    expect(counter(tokenBucket, zero).hit(0, 0)).toEqual(d(false, 0, 0, 0, Infinity));
  });

  it("a cost above the burst can never fit and consumes nothing", () => {
    const c = counter(tokenBucket, spec);
    c.hit(0);
    const before = c.state;
    expect(c.hit(0, 4)).toEqual(d(false, 2, 2, 500, Infinity));
    expect(c.state).toBe(before);
    expect(counter(tokenBucket, { limit: 5, windowMs: 1000, burst: 0 }).hit(0)).toEqual(d(false, 5, 0, 0, Infinity));
  });

  it("retries exactly on a rate that is not a whole number of ms per token", () => {
    // 3 per second, burst 1: a token every 333⅓ ms, so the wait rounds up to 334.
    const c = counter(tokenBucket, { limit: 3, windowMs: 1000, burst: 1 });
    c.hit(0);
    expect(c.hit(1).retryAfterMs).toBe(333);
    expect(c.hit(333).allowed).toBe(false);
    expect(c.hit(334)).toEqual(d(true, 3, 0, 334, 0));
  });

  it("stays exact at 1e9 per year (1e9/year reduces to 125 per 3942 ms)", () => {
    const big = { limit: 1e9, windowMs: YEAR, burst: 1e9 };
    expect(exactArithmeticOk(big, "token_bucket")).toBe(true);
    const c = counter(tokenBucket, big);
    const t0 = 1_700_000_000_000;
    expect(c.hit(t0, 1e9)).toEqual(d(true, 1e9, 0, YEAR, 0));
    // One token every 31.536 ms: the first is whole after 32 ms.
    expect(c.hit(t0 + 1)).toEqual(d(false, 1e9, 0, YEAR - 1, 31));
    expect(c.hit(t0 + 31).allowed).toBe(false);
    expect(c.hit(t0 + 32)).toEqual(d(true, 1e9, 0, YEAR, 0));
    expect(tokenBucket.idleAt(c.state!, big)).toBe(t0 + 32 + YEAR);
  });

  it("idleAt is when the bucket is full again", () => {
    const c = counter(tokenBucket, spec);
    c.hit(100, 3);
    expect(tokenBucket.idleAt(c.state!, spec)).toBe(1600);
  });

  it("treats a clock that steps back as standing still, so waits only lengthen", () => {
    const c = counter(tokenBucket, spec);
    c.hit(1000, 3);
    expect(c.hit(900)).toEqual(d(false, 2, 0, 1600, 600));
    expect(c.hit(1499).allowed).toBe(false);
    expect(c.hit(1500).allowed).toBe(true);
  });

  const subject: Subject<unknown> = { algorithm: tokenBucket, oracle: bucketOracle, capacity: (l) => l.burst, bound: bucketBound };

  it("matches the exact bucket oracle on random traces (small numbers)", () => {
    runProperty(subject, smallScenarios({ bucket: true }), 400);
  });

  it("matches the exact bucket oracle on random traces (production-sized numbers)", () => {
    runProperty(subject, largeScenarios({ bucket: true, exactOk: (l) => exactArithmeticOk(l, "token_bucket") }), 100);
  });
});
