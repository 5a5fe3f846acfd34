/**
 * Fixed window (Envoy's rate limit service): one count per window, windows
 * aligned to multiples of `windowMs` since the epoch so every object and
 * every client agrees on the boundaries. Cheapest and easiest to explain;
 * a client can get up to 2 × limit through across a boundary. `burst` is
 * ignored. Only counts are stored, so the arithmetic is always exact.
 */
// @ts-nocheck

import { checkArgs, windowStart, zeroLimit } from "./arith.ts";
import type { Algorithm, Decision, LimitSpec } from "./types.ts";

/** Count `c` of the window starting at `w` (ms since epoch). */
export interface FixedWindowState {
  readonly w: number;
  readonly c: number;
}

/**
 * The fixed window algorithm.
 *
 * @example
 * const spec = { limit: 3, windowMs: 1000, burst: 3 };
 * let { state, decision } = fixedWindow.decide(undefined, spec, 1500, 3); // allowed, resetAfterMs 500
 * ({ decision } = fixedWindow.decide(state, spec, 1999, 1)); // rejected, retryAfterMs 1
 */
export const fixedWindow: Algorithm<FixedWindowState> = {
  name: "fixed_window",

  decide(state: FixedWindowState | undefined, limit: LimitSpec, now: number, cost: number) {
    checkArgs(limit, now, cost);
    const W = limit.windowMs;
    const L = limit.limit;
    const s = state ?? { w: windowStart(now, W), c: 0 };
    // A state from a later window means the clock stepped back: keep counting
    // in that window rather than forget its hits.
    const start = Math.max(windowStart(now, W), s.w);
    const count = s.w === start ? s.c : 0;
    if (L === 0) return { state: s, decision: zeroLimit() };
    const report = (c: number, retryAfterMs: number, allowed: boolean): Decision => ({
      allowed,
      limit: L,
      remaining: Math.max(0, L - c),
      resetAfterMs: c > 0 ? start + W - now : 0,
      retryAfterMs,
      // Whatever is left is all this window gives; the next one starts afresh.
      effectiveWindowMs: start + W - now,
    });
    if (cost > L) return { state: s, decision: { ...report(count, 0, false), retryAfterMs: Infinity } };
    if (count + cost <= L) {
      const c = count + cost;
      return { state: cost === 0 ? s : { w: start, c }, decision: report(c, 0, true) };
    }
    // cost ≤ L, so the next window, empty, takes it.
    return { state: s, decision: report(count, start + W - now, false) };
  },

  idleAt(state: FixedWindowState, limit: LimitSpec): number {
    return state.c > 0 ? state.w + limit.windowMs : state.w;
  },
};
