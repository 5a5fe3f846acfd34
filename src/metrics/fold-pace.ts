/**
 * When a metrics shard folds its sums into SQLite (docs/metrics.md, "Where
 * counts go"), as a pure function, so a simulated clock can drive 10,000
 * isolates' sends through it (test/rules/control-plane.node.test.ts): at
 * most once per FOLD_MS from sends, else one alarm, so the rows a shard
 * writes grow with time, not with the sends it takes.
 */

/**
 * Least time between two folds a send or an alarm makes (reads fold too):
 * the most of a shard's sends a reset can lose, unless a read showed them.
 */
export const FOLD_MS = 30_000;

/** `fold`: now; `alarm`: set one to fold in `inMs`; undefined: one is set. */
export type FoldStep = "fold" | { readonly alarmInMs: number } | undefined;

/**
 * What a send at `now` does, the last fold at `foldedAt` and an alarm set or not.
 *
 * @example
 * foldStep(40_000, 0, false); // "fold"
 * foldStep(10_000, 0, false); // { alarmInMs: 20_000 }
 * foldStep(10_000, 0, true); // undefined
 */
export function foldStep(now: number, foldedAt: number, alarmSet: boolean): FoldStep {
  if (now - foldedAt >= FOLD_MS) return "fold";
  return alarmSet ? undefined : { alarmInMs: Math.max(0, FOLD_MS - (now - foldedAt)) };
}
