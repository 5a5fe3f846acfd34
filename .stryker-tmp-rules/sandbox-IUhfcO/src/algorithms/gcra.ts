/**
 * GCRA, the Generic Cell Rate Algorithm (ATM networks; redis-cell, Upstash,
 * `throttled`): one theoretical arrival time (TAT) per counter. Requests are
 * spaced by the emission interval T = windowMs / limit; a request of `cost`
 * moves the TAT to max(TAT, now) + cost × T and is allowed when the new TAT
 * is at most `burst × T` ahead of now.
 *
 * Its decisions equal the token and leaky buckets' ((TAT − now) / T is the
 * leaky bucket's level); see `token-bucket.ts` for why all three exist. This
 * one stores a single instant, which is what a `delay` mode needs: the TAT is
 * the slot a request reserves.
 *
 * Exactness: T = w/l ms with `l/w` the reduced rate, so the TAT is stored as
 * whole ms `t` plus a remainder `r/l` with 0 ≤ r < l; no fraction is ever
 * rounded. The largest amount formed is `burst × w + l` (in 1/l ms), bounded
 * by 2^52 via `exactArithmeticOk`.
 */
// @ts-nocheck

import { ceilDiv, checkArgs, floorDiv, rate, zeroLimit } from "./arith.ts";
import type { Algorithm, Decision, LimitSpec } from "./types.ts";

/** TAT = `t + r / l` ms, with `l` from the reduced rate and 0 ≤ r < l. */
export interface GcraState {
  readonly t: number;
  readonly r: number;
}

/**
 * The GCRA algorithm.
 *
 * @example
 * const spec = { limit: 3, windowMs: 1000, burst: 2 }; // T = 333⅓ ms
 * let { state, decision } = gcra.decide(undefined, spec, 0, 2); // allowed; state { t: 666, r: 2 }
 * ({ decision } = gcra.decide(state, spec, 0, 1)); // rejected, retryAfterMs 334
 */
export const gcra: Algorithm<GcraState> = {
  name: "gcra",

  decide(state: GcraState | undefined, limit: LimitSpec, now: number, cost: number) {
    checkArgs(limit, now, cost);
    const { l, w } = rate(limit);
    // Capacity burst × T, in units of 1/l ms.
    const cap = limit.burst * w;
    const s = state ?? { t: now, r: 0 };
    if (limit.limit === 0) return { state: s, decision: zeroLimit() };
    // How far the TAT is ahead of now, in 1/l ms (0 once it has passed). If
    // the clock steps back the TAT just looks further ahead: conservative.
    const ahead = s.t >= now ? (s.t - now) * l + s.r : 0;
    const report = (a: number, retryAfterMs: number, allowed: boolean): Decision => {
      const remaining = floorDiv(Math.max(0, cap - a), w);
      return {
        allowed,
        limit: limit.limit,
        remaining,
        resetAfterMs: ceilDiv(a, l),
        retryAfterMs,
        // Taking `remaining` slots leaves the TAT less than T short of the limit; it gets there then.
        effectiveWindowMs: limit.burst === 0 ? Infinity : ceilDiv((remaining + 1) * w - (cap - a), l),
      };
    };
    if (cost > limit.burst) return { state: s, decision: { ...report(ahead, 0, false), retryAfterMs: Infinity } };
    const need = cost * w;
    if (need <= cap - ahead) {
      if (cost === 0) return { state: s, decision: report(ahead, 0, true) };
      const a = ahead + need;
      const whole = floorDiv(a, l);
      return { state: { t: now + whole, r: a - whole * l }, decision: report(a, 0, true) };
    }
    return { state: s, decision: report(ahead, ceilDiv(need - (cap - ahead), l), false) };
  },

  idleAt(state: GcraState): number {
    return state.r > 0 ? state.t + 1 : state.t;
  },
};
