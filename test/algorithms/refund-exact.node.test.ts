/**
 * Refunds to the buckets after the charge's instant, exactly: the credit is
 * `k` less the refill since the charge (at `limit` per window), never
 * below 0, so the state after it is the documented one to the scaled unit,
 * not only "no more than the exact answer" (refund.test.ts checks that
 * bound against the oracles). Also: a refund with nothing to take leaves
 * the state as it was, and never changes the state it was given.
 *
 * States are as the algorithms document them: with the rate 3 per 1 000 ms
 * (already in lowest terms, so l = 3 and w = 1 000), a token bucket holds
 * `n / 1000` tokens and refills 3 units a ms; a leaky bucket's level `v` is
 * in the same units and drains 3 a ms; a GCRA TAT is `t + r / 3` ms.
 */
import { describe, expect, it } from "vitest";
import { refund } from "../../src/algorithms/index.ts";

const spec = { limit: 3, windowMs: 1_000, burst: 4 };

describe("bucket refunds after the charge's instant", () => {
  it("token bucket: credits k less the refill since the charge, at the later of now and the state's time", () => {
    const s = { t: 0, n: 1_000 };
    // At the charge's instant: all of k (2 000 units) comes back.
    expect(refund("token_bucket", s, spec, 0, 0, 2)).toEqual({ t: 0, n: 3_000 });
    // 100 ms on: 300 units refilled, 1 700 credited.
    expect(refund("token_bucket", s, spec, 100, 0, 2)).toEqual({ t: 100, n: 3_000 });
    // From ⌈2 000 / 3⌉ = 667 ms on the refill has covered k: nothing is credited, never a negative credit.
    expect(refund("token_bucket", s, spec, 666, 0, 2)).toEqual({ t: 666, n: 1_000 + 1_998 + 2 });
    expect(refund("token_bucket", s, spec, 667, 0, 2)).toEqual({ t: 667, n: 1_000 + 2_001 });
    expect(refund("token_bucket", s, spec, 900, 0, 2)).toEqual({ t: 900, n: 1_000 + 2_700 });
    // Full long ago: stays full.
    expect(refund("token_bucket", s, spec, 50_000, 49_999, 1)).toEqual({ t: 50_000, n: 4_000 });
    // A clock behind the state's: the refund happens at the state's time, 100 ms after the charge.
    expect(refund("token_bucket", { t: 500, n: 1_000 }, spec, 400, 400, 1)).toEqual({ t: 500, n: 1_700 });
  });

  it("leaky bucket: takes out k less the drain since the charge, never below empty", () => {
    const s = { t: 0, v: 3_000 };
    expect(refund("leaky_bucket", s, spec, 0, 0, 2)).toEqual({ t: 0, v: 1_000 });
    // 100 ms on: drained to 2 700, 1 700 taken out.
    expect(refund("leaky_bucket", s, spec, 100, 0, 2)).toEqual({ t: 100, v: 1_000 });
    expect(refund("leaky_bucket", s, spec, 667, 0, 2)).toEqual({ t: 667, v: 3_000 - 2_001 });
    expect(refund("leaky_bucket", s, spec, 5_000, 0, 2)).toEqual({ t: 5_000, v: 0 });
    expect(refund("leaky_bucket", { t: 0, v: 500 }, spec, 0, 0, 3)).toEqual({ t: 0, v: 0 });
    expect(refund("leaky_bucket", { t: 500, v: 3_000 }, spec, 400, 400, 1)).toEqual({ t: 500, v: 2_300 });
  });

  it("gcra: moves the TAT back by k less the time since the charge, never before now", () => {
    // TAT 1 000 + 2/3 ms; at 0 it leads by 3 002 units of 1/3 ms.
    const s = { t: 1_000, r: 2 };
    expect(refund("gcra", s, spec, 0, 0, 2)).toEqual({ t: 334, r: 0 });
    // 100 ms on: it leads by 2 702, less 1 700: 1 002 units, 334 ms.
    expect(refund("gcra", s, spec, 100, 0, 2)).toEqual({ t: 434, r: 0 });
    expect(refund("gcra", s, spec, 667, 0, 2)).toEqual({ t: 1_000, r: 2 });
    // A TAT already past: nothing leads, whatever the credit.
    expect(refund("gcra", { t: 10, r: 1 }, spec, 20, 20, 1)).toEqual({ t: 20, r: 0 });
  });
});

describe("refunds that take nothing out", () => {
  it("give back the very state when there is nothing to take or no limit", () => {
    const fixed = { w: 0, c: 3 };
    expect(refund("fixed_window", fixed, spec, 10, 5, 0)).toBe(fixed);
    expect(refund("fixed_window", fixed, { ...spec, limit: 0 }, 10, 5, 2)).toBe(fixed);
    expect(refund("token_bucket", undefined, spec, 10, 5, 2)).toBeUndefined();
  });

  it("sliding log: a charge after every entry (the entry is gone) takes nothing, and the state given is never changed", () => {
    const log = [
      [100, 2],
      [300, 1],
    ];
    expect(refund("sliding_window_log", log, spec, 400, 350, 1)).toBe(log);
    expect(refund("sliding_window_log", log, spec, 400, 250, 1)).toEqual([[100, 2]]);
    expect(refund("sliding_window_log", log, spec, 400, 100, 1)).toEqual([
      [100, 1],
      [300, 1],
    ]);
    expect(log).toEqual([
      [100, 2],
      [300, 1],
    ]);
  });
});
