/**
 * Charging hits at the instant they were allowed, when they are reported
 * later (a lease holder's sync: docs/placement.md, "Hits charged in their
 * window"). `chargedBefore(name, state, limit, now, at, k)` answers for the
 * windowed algorithms whose hits belong to an aligned window:
 *
 * - `fixed_window`: hits of a window already over at `now` change nothing
 *   (that window's count no longer decides anything); charging them at
 *   `now` would take them from the next window's quota.
 * - `sliding_window_counter`: hits of the window before `now`'s are added to
 *   the previous count, which `now`'s estimate weighs; older ones change
 *   nothing.
 *
 * For hits in `now`'s own window, and for the other algorithms, it answers
 * `undefined`: the caller decides them at `at` as usual, and every algorithm
 * files a hit older than its state at the state's newest instant, which is
 * later than the hit, so never admits more than the exact answer.
 */
import { windowStart } from "./arith.ts";
import type { FixedWindowState } from "./fixed-window.ts";
import type { SlidingWindowCounterState } from "./sliding-window-counter.ts";
import type { AlgorithmName, LimitSpec } from "./types.ts";

/**
 * The state with `k` hits allowed at `at` (before `now`) charged, when they
 * fall in a window before `now`'s; `undefined` when they are charged as a
 * decision at `at` is. `{ state }` with the input state itself means
 * nothing changes.
 *
 * @example
 * const spec = { limit: 5, windowMs: 10_000, burst: 5 };
 * chargedBefore("fixed_window", { w: 10_000, c: 1 }, spec, 20_300, 19_800, 2); // { state: { w: 10_000, c: 1 } }: that window is over
 * chargedBefore("fixed_window", { w: 20_000, c: 1 }, spec, 20_300, 20_100, 2); // undefined: decide at 20_100
 */
export function chargedBefore(name: AlgorithmName, state: unknown, limit: LimitSpec, now: number, at: number, k: number): { state: unknown } | undefined {
  if (!(at < now) || limit.windowMs <= 0) return undefined;
  const W = limit.windowMs;
  const hit = windowStart(at, W);
  if (name === "fixed_window") {
    const s = state as FixedWindowState | undefined;
    const current = Math.max(windowStart(now, W), s?.w ?? -Infinity);
    return hit < current ? { state } : undefined;
  }
  if (name === "sliding_window_counter") {
    const s = state as SlidingWindowCounterState | undefined;
    const current = Math.max(windowStart(now, W), s?.w ?? -Infinity);
    if (hit === current) return undefined;
    if (hit < current - W) return { state };
    // The previous window: its count as `now`'s window sees it, plus the hits.
    const p = s === undefined ? 0 : s.w === current ? s.p : s.w === current - W ? s.c : 0;
    const c = s !== undefined && s.w === current ? s.c : 0;
    return { state: { w: current, p: p + k, c } satisfies SlidingWindowCounterState };
  }
  return undefined;
}
