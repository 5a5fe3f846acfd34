/**
 * Reserving a future slot (`on_limit: "delay"`, and the queue consumer's
 * pacing): a request over the limit now is admitted at the first instant it
 * fits, `now + retryAfterMs`, if that is within `maxDelayMs`.
 *
 * This needs no algorithm of its own. Every algorithm's `retryAfterMs` is
 * exact, so deciding the request *at* `now + retryAfterMs` allows it, and
 * the state that decision returns is the counter with the slot taken. For
 * the bucket algorithms that state lies in the future (a token bucket's `t`,
 * a leaky bucket's `t`, a GCRA's TAT), and every later decision measures
 * from it, so reserved slots count against the limit and never overlap:
 * the next reservation lands at least one emission interval (or what the
 * burst leaves) after the last. Only the buckets are reservable: a window
 * algorithm decided at a future instant would move its window forward and
 * forget the hits of the current one.
 */
// @ts-nocheck

import type { Algorithm, AlgorithmName, LimitSpec, Step } from "./types.ts";

/**
 * Algorithms whose future slots are well defined (state only moves forward).
 *
 * @example
 * RESERVABLE.has("gcra");         // true
 * RESERVABLE.has("fixed_window"); // false
 */
export const RESERVABLE: ReadonlySet<AlgorithmName> = new Set(["token_bucket", "leaky_bucket", "gcra"]);

/** One window of a counter, as `reserve` needs it. */
export interface ReserveWindow {
  readonly algorithm: Algorithm<unknown>;
  readonly state: unknown;
  readonly limit: LimitSpec;
  /** Whether this window may admit the request in the future; others must allow it now. */
  readonly reserve: boolean;
}

/** The outcome of a reservation over all windows of one counter. */
export interface Reservation {
  /** True when the request fits now or at a slot within `maxDelayMs`. */
  readonly allowed: boolean;
  /** Wait until the slot (0 when it fits now, and when rejected). */
  readonly delayMs: number;
  /**
   * Per window, in order. Allowed: the steps to keep (reserved windows
   * decided at the slot, the others at `now`). Rejected: the decisions at
   * `now`, each state the input one (nothing is consumed).
   */
  readonly steps: readonly Step<unknown>[];
}

/**
 * Reserve the slot of a request of `cost` at `now`: the earliest instant
 * within `maxDelayMs` at which every window allows it. Reserved windows are
 * decided at that instant; the others must allow the request now. If any
 * window rejects beyond `maxDelayMs`, can never fit, or is not reservable,
 * nothing is consumed.
 *
 * @example
 * const limit = { limit: 5, windowMs: 1000, burst: 1 }; // one per 200 ms
 * let r = reserve([{ algorithm: gcra, state: undefined, limit, reserve: true }], 0, 1, 1000); // delayMs 0
 * r = reserve([{ algorithm: gcra, state: r.steps[0].state, limit, reserve: true }], 0, 1, 1000); // delayMs 200
 */
export function reserve(windows: readonly ReserveWindow[], now: number, cost: number, maxDelayMs: number): Reservation {
  const atNow = windows.map((w) => w.algorithm.decide(w.state, w.limit, now, cost));
  const rejected = { allowed: false, delayMs: 0, steps: atNow };
  let delayMs = 0;
  for (const [i, step] of atNow.entries()) {
    if (step.decision.allowed) continue;
    const wait = step.decision.retryAfterMs;
    if (!windows[i].reserve || !Number.isFinite(wait)) return rejected;
    delayMs = Math.max(delayMs, wait);
  }
  if (delayMs === 0) return { allowed: true, delayMs: 0, steps: atNow };
  if (delayMs > maxDelayMs) return rejected;
  // Buckets only refill while nothing is taken, so each window that allows
  // at its own retry-after still allows at the latest of them.
  const atSlot = windows.map((w, i) => (w.reserve ? w.algorithm.decide(w.state, w.limit, now + delayMs, cost) : atNow[i]));
  if (!atSlot.every((step) => step.decision.allowed)) return rejected;
  return { allowed: true, delayMs, steps: atSlot };
}
