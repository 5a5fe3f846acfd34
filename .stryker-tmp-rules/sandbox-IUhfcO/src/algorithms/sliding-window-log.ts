/**
 * Sliding window log: the exact answer. It remembers every allowed hit and
 * allows a request when the hits of the last `windowMs` (timestamps in
 * `(now − windowMs, now]`) plus `cost` stay within `limit`. `burst` is
 * ignored. The price is memory: up to one entry per allowed ms in a window,
 * so it suits small limits (logins, payments), not 10 000 per minute. Hits of
 * the same ms share one `[ts, count]` entry to keep the stored JSON small.
 */
// @ts-nocheck

import { checkArgs, zeroLimit } from "./arith.ts";
import type { Algorithm, Decision, LimitSpec } from "./types.ts";

/** Allowed hits as `[timestamp ms, count]`, oldest first, timestamps distinct. */
export type SlidingWindowLogState = readonly (readonly [number, number])[];

const EMPTY: SlidingWindowLogState = [];

/**
 * Milliseconds until one more hit fits once the remaining quota is spent
 * now: the live hits from `entries[from]` on, `used` of them, must fall to
 * `L − 1`. Hits spent now expire last, so the oldest live ones go first;
 * with none live, the spent ones themselves expire a window from now.
 */
function freedAfter(entries: SlidingWindowLogState, from: number, used: number, L: number, W: number, now: number): number {
  let excess = Math.max(used, L) - L + 1;
  for (let i = from; i < entries.length; i++) {
    excess -= entries[i][1];
    if (excess <= 0) return entries[i][0] + W - now;
  }
  return Math.max(now, entries.length > 0 ? entries[entries.length - 1][0] : now) + W - now;
}

/**
 * The sliding window log algorithm.
 *
 * @example
 * const spec = { limit: 3, windowMs: 1000, burst: 3 };
 * let { state } = slidingWindowLog.decide(undefined, spec, 0, 1);
 * ({ state } = slidingWindowLog.decide(state, spec, 100, 2)); // state [[0, 1], [100, 2]]
 * slidingWindowLog.decide(state, spec, 500, 1).decision.retryAfterMs; // 500: the hit at 0 expires at 1000
 */
export const slidingWindowLog: Algorithm<SlidingWindowLogState> = {
  name: "sliding_window_log",

  decide(state: SlidingWindowLogState | undefined, limit: LimitSpec, now: number, cost: number) {
    checkArgs(limit, now, cost);
    const W = limit.windowMs;
    const L = limit.limit;
    const log = state ?? EMPTY;
    if (L === 0) return { state: log, decision: zeroLimit() };
    // Entries at or before now − W have left the window.
    let first = 0;
    while (first < log.length && log[first][0] <= now - W) first++;
    let live = 0;
    for (let i = first; i < log.length; i++) live += log[i][1];
    const report = (entries: SlidingWindowLogState, from: number, used: number, retryAfterMs: number, allowed: boolean): Decision => {
      const newest = entries.length > 0 ? entries[entries.length - 1][0] : now;
      return {
        allowed,
        limit: L,
        remaining: Math.max(0, L - used),
        resetAfterMs: used > 0 ? newest + W - now : 0,
        retryAfterMs,
        effectiveWindowMs: freedAfter(entries, from, used, L, W, now),
      };
    };
    const newest = log.length > 0 ? log[log.length - 1][0] : now;
    if (cost > L) return { state: log, decision: { ...report(log, first, live, 0, false), retryAfterMs: Infinity } };
    if (live + cost <= L) {
      if (cost === 0) return { state: log, decision: report(log, first, live, 0, true) };
      const kept = log.slice(first);
      // If the clock stepped back, file the hit under the newest timestamp:
      // the log stays sorted and the hit expires later, never earlier.
      const at = Math.max(now, newest);
      const last = kept[kept.length - 1];
      if (last !== undefined && last[0] === at) kept[kept.length - 1] = [at, last[1] + cost];
      else kept.push([at, cost]);
      return { state: kept, decision: report(kept, 0, live + cost, 0, true) };
    }
    // Wait until enough of the oldest hits have expired; cost ≤ L, so the
    // loop ends by the newest entry at the latest.
    let excess = live + cost - L;
    let i = first;
    while (excess > log[i][1]) excess -= log[i++][1];
    return { state: log, decision: report(log, first, live, log[i][0] + W - now, false) };
  },

  idleAt(state: SlidingWindowLogState, limit: LimitSpec): number {
    return state.length > 0 ? state[state.length - 1][0] + limit.windowMs : 0;
  },
};
