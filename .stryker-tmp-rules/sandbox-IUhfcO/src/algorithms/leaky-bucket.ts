/**
 * Leaky bucket as a meter (nginx `limit_req`, Shopify): each request pours
 * `cost` into a bucket of capacity `burst` that drains `limit` per window; a
 * request that would overflow is rejected and pours nothing. It starts empty.
 *
 * Its decisions equal the token bucket's and GCRA's (level = burst − tokens);
 * see `token-bucket.ts` for why all three exist. This one stores the level,
 * which is what nginx users and the `delay` mode reason about: how much work
 * is queued ahead of the next request.
 *
 * Exactness: the level is stored scaled by `w` of the reduced rate `l/w`, so
 * it drains `l` units per ms. The largest amount formed is `burst × w`,
 * bounded by 2^52 via `exactArithmeticOk`.
 */
// @ts-nocheck

import { ceilDiv, checkArgs, floorDiv, rate, zeroLimit } from "./arith.ts";
import type { Algorithm, Decision, LimitSpec } from "./types.ts";

/** Level `v` (scaled: `v / w` requests, see `rate`) as of time `t` (ms). */
export interface LeakyBucketState {
  readonly t: number;
  readonly v: number;
}

/** Scaled level at `at` (≥ s.t): drained by `l` per ms, never below 0. */
function levelAt(s: LeakyBucketState, l: number, at: number): number {
  // Compare before multiplying so a long idle gap cannot overflow.
  if (s.v <= 0 || at - s.t >= ceilDiv(s.v, l)) return 0;
  return s.v - (at - s.t) * l;
}

/**
 * The leaky bucket (meter) algorithm.
 *
 * @example
 * const spec = { limit: 2, windowMs: 1000, burst: 3 }; // holds 3, drains one per 500 ms
 * let { state, decision } = leakyBucket.decide(undefined, spec, 0, 3); // allowed, remaining 0
 * ({ decision } = leakyBucket.decide(state, spec, 250, 1)); // rejected, retryAfterMs 250
 */
export const leakyBucket: Algorithm<LeakyBucketState> = {
  name: "leaky_bucket",

  decide(state: LeakyBucketState | undefined, limit: LimitSpec, now: number, cost: number) {
    checkArgs(limit, now, cost);
    const { l, w } = rate(limit);
    const cap = limit.burst * w;
    const s = state ?? { t: now, v: 0 };
    if (limit.limit === 0) return { state: s, decision: zeroLimit() };
    // A clock that steps back is treated as standing still at the state's
    // time; offsets are measured from the real `now`, so they only lengthen.
    const at = Math.max(now, s.t);
    const level = levelAt(s, l, at);
    const report = (v: number, retryAfterMs: number, allowed: boolean): Decision => {
      const remaining = floorDiv(Math.max(0, cap - v), w);
      return {
        allowed,
        limit: limit.limit,
        remaining,
        resetAfterMs: at - now + ceilDiv(v, l),
        retryAfterMs,
        // Pouring `remaining` in leaves room for less than one more; it drains to one then.
        effectiveWindowMs: limit.burst === 0 ? Infinity : at - now + ceilDiv((remaining + 1) * w - (cap - v), l),
      };
    };
    if (cost > limit.burst) return { state: s, decision: { ...report(level, 0, false), retryAfterMs: Infinity } };
    const need = cost * w;
    // `need ≤ cap − level` rather than `level + need ≤ cap`: no sum past cap.
    if (need <= cap - level) {
      const v = level + need;
      return { state: cost === 0 ? s : { t: at, v }, decision: report(v, 0, true) };
    }
    return { state: s, decision: report(level, at - now + ceilDiv(need - (cap - level), l), false) };
  },

  idleAt(state: LeakyBucketState, limit: LimitSpec): number {
    const { l } = rate(limit);
    if (l === 0 || state.v <= 0) return state.t;
    return state.t + ceilDiv(state.v, l);
  },
};
