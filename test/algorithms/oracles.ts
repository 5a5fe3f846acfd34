/**
 * Exact reference models for the algorithm property tests, written from the
 * definitions and independently of `src/algorithms`: BigInt arithmetic and
 * brute force over the list of allowed hits, no scaling tricks, no clamps.
 */
import type { AlgorithmName, LimitSpec } from "../../src/algorithms/types.ts";

/** A reference model fed the same requests as the algorithm under test. */
export interface Oracle {
  /** Whether a request of `cost` at `t` fits, given the hits committed so far. */
  fits(t: number, cost: number): boolean;
  /** Records an allowed request. */
  commit(t: number, cost: number): void;
  /** Whether the whole quota is free at `t`, if nothing more arrives. */
  quiet(t: number): boolean;
}

const big = BigInt;

/**
 * A bucket of `burst` tokens refilled at `limit/windowMs` per ms, starting
 * full: the model shared by token bucket, leaky bucket and GCRA. Tokens are
 * kept as a rational with denominator windowMs (the BigInt `tokensW`).
 *
 * @example
 * bucketOracle({ limit: 1, windowMs: 10, burst: 1 }).fits(0, 1); // true
 */
export function bucketOracle(spec: LimitSpec): Oracle {
  const L = big(spec.limit);
  const W = big(spec.windowMs);
  const full = big(spec.burst) * W;
  let tokensW = full;
  let last: bigint | undefined;
  const at = (t: number): bigint => {
    if (last === undefined) return tokensW;
    const refilled = tokensW + (big(t) - last) * L;
    // biome-ignore lint/complexity/useMathMinMax: bigint, which Math.min does not take
    return refilled < full ? refilled : full;
  };
  return {
    fits: (t, cost) => L > 0n && big(cost) * W <= at(t),
    commit(t, cost) {
      tokensW = at(t) - big(cost) * W;
      last = big(t);
    },
    quiet: (t) => at(t) === full,
  };
}

/** Sum of `cost` over the hits with `keep(time)`. */
function sum(hits: readonly (readonly [number, number])[], keep: (time: number) => boolean): number {
  let total = 0;
  for (const [time, cost] of hits) if (keep(time)) total += cost;
  return total;
}

/**
 * Index of the aligned window holding `t` (floor division, exact in BigInt).
 *
 * @example
 * windowIndex(1500, 1000); // 1n
 */
export function windowIndex(t: number, windowMs: number): bigint {
  const q = big(t) / big(windowMs);
  return big(t) < 0n && q * big(windowMs) !== big(t) ? q - 1n : q;
}

/**
 * Hits per aligned window of `windowMs`, from `[time, cost]` pairs.
 *
 * @example
 * hitsPerWindow([[100, 1], [900, 2], [1000, 1]], 1000); // Map { 0n => 3, 1n => 1 }
 */
export function hitsPerWindow(hits: readonly (readonly [number, number])[], windowMs: number): Map<bigint, number> {
  const perWindow = new Map<bigint, number>();
  for (const [t, cost] of hits) {
    const k = windowIndex(t, windowMs);
    perWindow.set(k, (perWindow.get(k) ?? 0) + cost);
  }
  return perWindow;
}

/**
 * At most `limit` hits in each aligned window: Envoy's fixed window.
 *
 * @example
 * fixedWindowOracle({ limit: 1, windowMs: 10, burst: 1 }).quiet(5); // true
 */
export function fixedWindowOracle(spec: LimitSpec): Oracle {
  const hits: [number, number][] = [];
  const count = (t: number) => sum(hits, (h) => windowIndex(h, spec.windowMs) === windowIndex(t, spec.windowMs));
  return {
    fits: (t, cost) => spec.limit > 0 && count(t) + cost <= spec.limit,
    commit: (t, cost) => void hits.push([t, cost]),
    quiet: (t) => count(t) === 0,
  };
}

/**
 * At most `limit` hits with timestamps in `(t − windowMs, t]`: the exact sliding window.
 *
 * @example
 * slidingLogOracle({ limit: 2, windowMs: 10, burst: 2 }).fits(0, 3); // false
 */
export function slidingLogOracle(spec: LimitSpec): Oracle {
  const hits: [number, number][] = [];
  const live = (t: number) => sum(hits, (h) => h > t - spec.windowMs && h <= t);
  return {
    fits: (t, cost) => spec.limit > 0 && live(t) + cost <= spec.limit,
    commit: (t, cost) => void hits.push([t, cost]),
    quiet: (t) => live(t) === 0,
  };
}

/**
 * Cloudflare's estimate, as an exact rational: previous × (W − e)/W + current
 * + cost ≤ limit, compared after multiplying by W, in BigInt.
 *
 * @example
 * slidingCounterOracle({ limit: 10, windowMs: 1000, burst: 10 }).fits(0, 10); // true
 */
export function slidingCounterOracle(spec: LimitSpec): Oracle {
  const hits: [number, number][] = [];
  const W = big(spec.windowMs);
  // estimate × W, and the numerator that cost must fit under.
  const estimateW = (t: number): bigint => {
    const k = windowIndex(t, spec.windowMs);
    const prev = big(sum(hits, (h) => windowIndex(h, spec.windowMs) === k - 1n));
    const cur = big(sum(hits, (h) => windowIndex(h, spec.windowMs) === k));
    const elapsed = big(t) - k * W;
    return prev * (W - elapsed) + cur * W;
  };
  return {
    fits: (t, cost) => spec.limit > 0 && estimateW(t) + big(cost) * W <= big(spec.limit) * W,
    commit: (t, cost) => void hits.push([t, cost]),
    quiet: (t) => estimateW(t) === 0n,
  };
}

/** The exact oracle of each algorithm (the three buckets share one). */
export const ORACLES: Readonly<Record<AlgorithmName, (spec: LimitSpec) => Oracle>> = {
  token_bucket: bucketOracle,
  leaky_bucket: bucketOracle,
  gcra: bucketOracle,
  fixed_window: fixedWindowOracle,
  sliding_window_log: slidingLogOracle,
  sliding_window_counter: slidingCounterOracle,
};

/**
 * The hits of `allowedAt` (their times, in the order they were allowed, one
 * hit each) that `oracle` would have refused, each fitting one committed to
 * it as it goes: none, where the limiter under test kept its bound.
 *
 * @example
 * expect(refusedBy(ORACLES.fixed_window({ limit: 2, windowMs: 1_000, burst: 2 }), [0, 10, 20])).toEqual([20]);
 */
export function refusedBy(oracle: Oracle, allowedAt: readonly number[]): number[] {
  return allowedAt.filter((t) => {
    const fits = oracle.fits(t, 1);
    oracle.commit(t, 1);
    return !fits;
  });
}
