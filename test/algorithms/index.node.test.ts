import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ceilDiv, floorDiv, mulDivFloor, rate } from "../../src/algorithms/arith.ts";
import {
  ALGORITHM_NAMES,
  algorithms,
  exactArithmeticOk,
  gcra,
  getAlgorithm,
  isAlgorithmName,
  leakyBucket,
  tokenBucket,
  type Algorithm,
  type AlgorithmName,
} from "../../src/algorithms/index.ts";
import { SEED, sameDecision, smallScenarios } from "./harness.ts";

const YEAR = 31_536_000_000;

describe("algorithm registry", () => {
  it("has the six algorithms docs/algorithms.md lists, each under its own name", () => {
    const names: AlgorithmName[] = ["token_bucket", "leaky_bucket", "fixed_window", "sliding_window_log", "sliding_window_counter", "gcra"];
    expect([...ALGORITHM_NAMES].sort()).toEqual([...names].sort());
    for (const name of names) {
      expect(getAlgorithm(name).name).toBe(name);
      expect(algorithms[name]).toBe(getAlgorithm(name));
      expect(isAlgorithmName(name)).toBe(true);
    }
  });

  it("refuses unknown names, including Object.prototype keys", () => {
    for (const name of ["token", "constructor", "toString", "__proto__", "", 1]) expect(isAlgorithmName(name)).toBe(false);
    expect(() => getAlgorithm("constructor" as AlgorithmName)).toThrow(RangeError);
  });

  it("every algorithm refuses non-integer or negative input instead of storing it", () => {
    const limit = { limit: 5, windowMs: 1000, burst: 5 };
    for (const alg of Object.values(algorithms)) {
      expect(() => alg.decide(undefined, limit, 0, -1)).toThrow(RangeError);
      expect(() => alg.decide(undefined, limit, 0, 1.5)).toThrow(RangeError);
      expect(() => alg.decide(undefined, limit, Number.NaN, 1)).toThrow(RangeError);
      expect(() => alg.decide(undefined, { ...limit, windowMs: 0 }, 0, 1)).toThrow(RangeError);
      expect(() => alg.decide(undefined, { ...limit, limit: -1 }, 0, 1)).toThrow(RangeError);
    }
  });
});

describe("exactArithmeticOk", () => {
  it("accepts round production rates for every algorithm", () => {
    for (const limit of [
      { limit: 60, windowMs: 60_000, burst: 60 },
      { limit: 1e9, windowMs: YEAR, burst: 1e9 },
      { limit: 50_000_000, windowMs: 86_400_000, burst: 50_000_000 },
      { limit: 0, windowMs: 1000, burst: 0 },
    ]) {
      expect(exactArithmeticOk(limit)).toBe(true);
      for (const name of ALGORITHM_NAMES) expect(exactArithmeticOk(limit, name)).toBe(true);
    }
  });

  it("rejects bucket parameters whose scaled capacity passes 2^52, but not for windowed algorithms", () => {
    // 999 999 937 is prime, so the rate does not reduce: burst × w ≈ 2.2e20.
    const odd = { limit: 999_999_937, windowMs: 7 * YEAR, burst: 1e9 };
    expect(exactArithmeticOk(odd)).toBe(false);
    for (const name of ["token_bucket", "leaky_bucket", "gcra"] as const) expect(exactArithmeticOk(odd, name)).toBe(false);
    for (const name of ["fixed_window", "sliding_window_log", "sliding_window_counter"] as const) expect(exactArithmeticOk(odd, name)).toBe(true);
    // Envoy's largest requests_per_unit (2^32 − 1) per day shares only 15 with the window.
    expect(exactArithmeticOk({ limit: 4_294_967_295, windowMs: 86_400_000, burst: 4_294_967_295 }, "token_bucket")).toBe(false);
  });

  it("draws the bucket line at burst × w + l = 2^52 exactly", () => {
    // limit 1 per windowMs w: units of 1/w, capacity burst × w.
    const w = 2 ** 26;
    expect(exactArithmeticOk({ limit: 1, windowMs: w, burst: 2 ** 26 - 1 }, "gcra")).toBe(true);
    expect(exactArithmeticOk({ limit: 1, windowMs: w, burst: 2 ** 26 }, "gcra")).toBe(false);
  });

  it("rejects non-integers, negatives and windows outside [1, 2^50]", () => {
    for (const limit of [
      { limit: 1.5, windowMs: 1000, burst: 1 },
      { limit: -1, windowMs: 1000, burst: 1 },
      { limit: 1, windowMs: 0, burst: 1 },
      { limit: 1, windowMs: 2 ** 50 + 1, burst: 1 },
      { limit: 1, windowMs: 1000, burst: Number.NaN },
      { limit: 2 ** 53, windowMs: 1000, burst: 1 },
    ]) {
      expect(exactArithmeticOk(limit, "fixed_window")).toBe(false);
    }
  });
});

describe("exact integer helpers", () => {
  const opts = { seed: SEED, numRuns: 500 };
  const safe = fc.integer({ min: 0, max: 2 ** 52 });
  const divisor = fc.oneof(fc.integer({ min: 1, max: 100 }), fc.integer({ min: 1, max: 2 ** 52 }));

  it("floorDiv and ceilDiv agree with BigInt division up to 2^52", () => {
    fc.assert(
      fc.property(safe, divisor, (a, b) => {
        const q = BigInt(a) / BigInt(b);
        return floorDiv(a, b) === Number(q) && ceilDiv(a, b) === Number(q * BigInt(b) === BigInt(a) ? q : q + 1n) && floorDiv(-a, b) === -ceilDiv(a, b);
      }),
      opts,
    );
  });

  it("mulDivFloor is exact whether or not the product passes 2^53", () => {
    const count = fc.oneof(fc.integer({ min: 0, max: 1_000 }), fc.integer({ min: 0, max: 4_294_967_295 }));
    fc.assert(
      fc.property(count, fc.integer({ min: 1, max: 3 * YEAR }), fc.integer({ min: 0, max: 3 * YEAR }), (a, d, bRaw) => {
        const b = bRaw % (d + 1); // b ≤ d, as the algorithms use it
        return mulDivFloor(a, b, d) === Number((BigInt(a) * BigInt(b)) / BigInt(d));
      }),
      opts,
    );
  });

  it("mulDivFloor is exact where the quotient is a whole number (the allow/deny boundary)", () => {
    // a = k × m and d = b × k, so a × b / d = m exactly, while a × b itself
    // is usually too large and odd to be a double.
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000 }), fc.integer({ min: 1, max: 1_000_000_000 }), fc.integer({ min: 1, max: 30_000_000 }), (k, m, b) => {
        return mulDivFloor(k * m, b, b * k) === m;
      }),
      opts,
    );
  });

  it("rate reduces limit/window to lowest terms", () => {
    expect(rate({ limit: 1e9, windowMs: YEAR, burst: 0 })).toEqual({ l: 125, w: 3942 });
    expect(rate({ limit: 7, windowMs: 1000, burst: 0 })).toEqual({ l: 7, w: 1000 });
  });
});

describe("the three buckets", () => {
  it("token bucket, leaky bucket and GCRA decide identically on every trace", () => {
    const buckets: readonly Algorithm<unknown>[] = [tokenBucket, leakyBucket, gcra];
    fc.assert(
      fc.property(smallScenarios({ bucket: true }), ({ limit, start, events }) => {
        const states: unknown[] = [undefined, undefined, undefined];
        let now = start;
        for (const { gap, cost } of events) {
          now += gap;
          const steps = buckets.map((alg, i) => alg.decide(states[i], limit, now, cost));
          steps.forEach((s, i) => {
            states[i] = s.state;
          });
          if (!sameDecision(steps[0].decision, steps[1].decision) || !sameDecision(steps[0].decision, steps[2].decision)) return false;
        }
        return true;
      }),
      { seed: SEED, numRuns: 300 },
    );
  });
});

describe("a clock that steps back", () => {
  it("never makes any algorithm more permissive than at the latest time it has seen", () => {
    for (const [name, alg] of Object.entries(algorithms)) {
      const bucket = ["token_bucket", "leaky_bucket", "gcra"].includes(name);
      fc.assert(
        fc.property(smallScenarios({ bucket }), fc.integer({ min: 1, max: 100 }), fc.integer({ min: 0, max: 3 }), ({ limit, start, events }, back, cost) => {
          let state: unknown;
          let now = start;
          for (const e of events) {
            now += e.gap;
            state = alg.decide(state, limit, now, e.cost).state;
          }
          const late = alg.decide(state, limit, now, cost).decision;
          const early = alg.decide(state, limit, now - back, cost).decision;
          if (early.allowed && !late.allowed) return false;
          // A wait, as an absolute instant, is never earlier than the real one.
          return early.allowed || late.allowed || now - back + early.retryAfterMs >= now + late.retryAfterMs;
        }),
        { seed: SEED, numRuns: 200 },
      );
    }
  });
});
