/**
 * Sliding window counter (Cloudflare's rate limiting; floodgate's default):
 * two aligned fixed-window counts, the previous and the current, weighted
 * into an estimate of the sliding window:
 *
 *   estimate = previous × (W − elapsed) / W + current
 *
 * and a request fits when estimate + cost ≤ limit. It is an approximation of
 * the sliding log in O(1) state: it assumes the previous window's hits were
 * spread evenly. Each aligned window still takes at most `limit`, so no
 * window of length W ever sees more than 2 × limit. `burst` is ignored.
 *
 * Exactness: the test is done multiplied through by W,
 * previous × (W − elapsed) ≤ (limit − current − cost) × W, with integers;
 * products beyond 2^53 (1e9 per year) go through BigInt in `mulDivFloor`,
 * so there is no limit on the parameters and no rounding anywhere.
 */
// @ts-nocheck

import { checkArgs, mulDivFloor, windowStart, zeroLimit } from "./arith.ts";
import type { Algorithm, Decision, LimitSpec } from "./types.ts";

/** Current window start `w` (ms since epoch), its count `c`, and `p` for the window before. */
export interface SlidingWindowCounterState {
  readonly w: number;
  readonly p: number;
  readonly c: number;
}

/**
 * The earliest instant from which `cost` fits, given counts `p`, `c` of the
 * windows before and at `start`, assuming `0 < cost ≤ L`. The estimate only
 * falls as time passes, so the first instant that fits is the answer.
 */
function fitsFrom(p: number, c: number, start: number, W: number, L: number, cost: number): number {
  // Still in this window: needs p × (W − e) ≤ (L − c − cost) × W, that is
  // W − e ≤ q. q ≥ W would fit at any e; q = 0 never in this window.
  const m = L - c - cost;
  if (m >= 0) {
    if (p === 0) return start;
    const q = mulDivFloor(m, W, p);
    if (q >= W) return start;
    if (q >= 1) return start + W - q;
  }
  // Next window: `c` becomes the previous count and the current one is 0.
  if (c === 0) return start + W;
  const q = mulDivFloor(L - cost, W, c);
  if (q >= 1) return start + W + Math.max(0, W - q);
  // The window after next: both counts are 0, and cost ≤ L fits.
  return start + 2 * W;
}

/**
 * The sliding window counter algorithm.
 *
 * @example
 * const spec = { limit: 10, windowMs: 1000, burst: 10 };
 * let { state } = slidingWindowCounter.decide(undefined, spec, 500, 10);
 * slidingWindowCounter.decide(state, spec, 1000, 1).decision.retryAfterMs; // 100: at 1100, 10 × 0.9 + 1 = 10
 */
export const slidingWindowCounter: Algorithm<SlidingWindowCounterState> = {
  name: "sliding_window_counter",

  decide(state: SlidingWindowCounterState | undefined, limit: LimitSpec, now: number, cost: number) {
    checkArgs(limit, now, cost);
    const W = limit.windowMs;
    const L = limit.limit;
    const s = state ?? { w: windowStart(now, W), p: 0, c: 0 };
    // A state from a later window means the clock stepped back: count in
    // that window, as if at its start, rather than forget its hits.
    const start = Math.max(windowStart(now, W), s.w);
    const elapsed = Math.max(0, now - start);
    const p = s.w === start ? s.p : s.w === start - W ? s.c : 0;
    const c = s.w === start ? s.c : 0;
    if (L === 0) return { state: s, decision: zeroLimit() };
    // ceil(p × (W − e) / W) written as p − floor(p × e / W): one product.
    const weighted = p - mulDivFloor(p, elapsed, W);
    const report = (cur: number, retryAfterMs: number, allowed: boolean): Decision => {
      const remaining = Math.max(0, L - cur - weighted);
      return {
        allowed,
        limit: L,
        remaining,
        resetAfterMs: cur > 0 ? start + 2 * W - now : p > 0 ? start + W - now : 0,
        retryAfterMs,
        // Once `remaining` is spent the estimate is at the limit; one more fits when it has decayed by one.
        effectiveWindowMs: fitsFrom(p, cur + remaining, start, W, L, 1) - now,
      };
    };
    if (cost > L) return { state: s, decision: { ...report(c, 0, false), retryAfterMs: Infinity } };
    if (cost === 0) return { state: s, decision: report(c, 0, true) };
    const from = fitsFrom(p, c, start, W, L, cost);
    if (from <= start + elapsed) return { state: { w: start, p, c: c + cost }, decision: report(c + cost, 0, true) };
    return { state: s, decision: report(c, from - now, false) };
  },

  idleAt(state: SlidingWindowCounterState, limit: LimitSpec): number {
    if (state.c > 0) return state.w + 2 * limit.windowMs;
    return state.p > 0 ? state.w + limit.windowMs : state.w;
  },
};
