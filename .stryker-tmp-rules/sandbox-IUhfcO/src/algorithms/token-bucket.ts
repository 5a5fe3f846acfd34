/**
 * Token bucket: `burst` tokens of capacity, refilled continuously at
 * `limit` tokens per window; a request takes `cost` tokens or is rejected.
 * It starts full, so a fresh client may send `burst` requests at once.
 *
 * The token bucket, the leaky bucket (as a meter) and GCRA make identical
 * decisions: tokens = burst − level = burst − (TAT − now)/T. All three exist
 * because users pick them by name from the systems they know (AWS/Stripe
 * token buckets, nginx/Shopify leaky buckets, redis-cell/Upstash GCRA) and
 * because each state reads naturally for its audience. The shared property
 * tests hold all three to one oracle.
 *
 * Exactness: tokens are stored scaled by `w` of the reduced rate `l/w`, so
 * `l` units arrive per ms and everything is an integer. The largest amount
 * formed is `burst × w`, which `exactArithmeticOk` bounds by 2^52.
 */
// @ts-nocheck

import { ceilDiv, checkArgs, floorDiv, rate, zeroLimit } from "./arith.ts";
import type { Algorithm, Decision, LimitSpec } from "./types.ts";

/** Tokens `n` (scaled: `n / w` whole tokens, see `rate`) as of time `t` (ms). */
export interface TokenBucketState {
  readonly t: number;
  readonly n: number;
}

/** Scaled tokens at `at` (≥ s.t): refilled by `l` per ms, capped at `cap`. */
function tokensAt(s: TokenBucketState, cap: number, l: number, at: number): number {
  const gap = cap - s.n;
  // Compare the elapsed time with the time to fill before multiplying, so a
  // long idle gap cannot overflow `elapsed × l`.
  if (gap <= 0 || at - s.t >= ceilDiv(gap, l)) return cap;
  return s.n + (at - s.t) * l;
}

/**
 * The token bucket algorithm.
 *
 * @example
 * const spec = { limit: 2, windowMs: 1000, burst: 3 }; // 3 at once, then one per 500 ms
 * let { state, decision } = tokenBucket.decide(undefined, spec, 0, 3); // allowed, remaining 0
 * ({ decision } = tokenBucket.decide(state, spec, 0, 1)); // rejected, retryAfterMs 500
 */
export const tokenBucket: Algorithm<TokenBucketState> = {
  name: "token_bucket",

  decide(state: TokenBucketState | undefined, limit: LimitSpec, now: number, cost: number) {
    checkArgs(limit, now, cost);
    const { l, w } = rate(limit);
    const cap = limit.burst * w;
    const s = state ?? { t: now, n: cap };
    if (limit.limit === 0) return { state: s, decision: zeroLimit() };
    // A clock that steps back (the object moved hosts) is treated as standing
    // still at the state's time; the offsets below are then measured from the
    // real `now`, which only makes them longer.
    const at = Math.max(now, s.t);
    const have = tokensAt(s, cap, l, at);
    const report = (n: number, retryAfterMs: number, allowed: boolean): Decision => {
      const remaining = floorDiv(n, w);
      return {
        allowed,
        limit: limit.limit,
        remaining,
        resetAfterMs: at - now + ceilDiv(cap - n, l),
        retryAfterMs,
        // Spending `remaining` leaves a fraction of a token; the next whole one arrives then.
        effectiveWindowMs: limit.burst === 0 ? Infinity : at - now + ceilDiv((remaining + 1) * w - n, l),
      };
    };
    if (cost > limit.burst) return { state: s, decision: { ...report(have, 0, false), retryAfterMs: Infinity } };
    const need = cost * w;
    if (need <= have) {
      const n = have - need;
      return { state: cost === 0 ? s : { t: at, n }, decision: report(n, 0, true) };
    }
    return { state: s, decision: report(have, at - now + ceilDiv(need - have, l), false) };
  },

  idleAt(state: TokenBucketState, limit: LimitSpec): number {
    const { l, w } = rate(limit);
    if (l === 0) return state.t;
    return state.t + ceilDiv(Math.max(0, limit.burst * w - state.n), l);
  },
};
