/**
 * The six rate-limit algorithms, as pure `Algorithm<S>` modules.
 *
 * | name                     | state (JSON)                 | decides                                        |
 * |--------------------------|------------------------------|------------------------------------------------|
 * | `token_bucket`           | `{ t, n }` time, tokens×w    | `burst` tokens, refilled `limit` per window    |
 * | `leaky_bucket`           | `{ t, v }` time, level×w     | level ≤ `burst`, draining `limit` per window   |
 * | `gcra`                   | `{ t, r }` TAT = t + r/l     | TAT at most `burst` intervals ahead            |
 * | `fixed_window`           | `{ w, c }` window, count     | ≤ `limit` per aligned window (Envoy)           |
 * | `sliding_window_log`     | `[[ts, n], …]` allowed hits  | ≤ `limit` in every window of length W, exactly |
 * | `sliding_window_counter` | `{ w, p, c }` window, counts | weighted two-window estimate (Cloudflare)      |
 *
 * `l/w` is `limit/windowMs` in lowest terms (`arith.ts`). The three buckets
 * decide identically (see `token-bucket.ts`); they differ in what they store.
 * All arithmetic is on integers, with no rounding: the buckets need
 * `exactArithmeticOk`, the windowed algorithms are exact for any safe integers.
 * Every decision that consumes nothing (a peek, a rejection) returns the
 * input state object itself (a fresh one when there was none), so a caller
 * can skip a write with `===`.
 */
import { EXACT_MAX, MAX_WINDOW_MS, rate } from "./arith.ts";
import { fixedWindow } from "./fixed-window.ts";
import { gcra } from "./gcra.ts";
import { leakyBucket } from "./leaky-bucket.ts";
import { slidingWindowCounter } from "./sliding-window-counter.ts";
import { slidingWindowLog } from "./sliding-window-log.ts";
import { tokenBucket } from "./token-bucket.ts";
import type { Algorithm, AlgorithmName, LimitSpec } from "./types.ts";

export type * from "./types.ts";
export type { TokenBucketState } from "./token-bucket.ts";
export type { LeakyBucketState } from "./leaky-bucket.ts";
export type { GcraState } from "./gcra.ts";
export type { FixedWindowState } from "./fixed-window.ts";
export type { SlidingWindowLogState } from "./sliding-window-log.ts";
export type { SlidingWindowCounterState } from "./sliding-window-counter.ts";
export { tokenBucket, leakyBucket, gcra, fixedWindow, slidingWindowLog, slidingWindowCounter };
export { reserve, RESERVABLE, type Reservation, type ReserveWindow } from "./reserve.ts";
export { EXACT_REFUND, refund } from "./refund.ts";
export { chargedBefore } from "./backdate.ts";

/**
 * Every algorithm by its `rules.json` name.
 *
 * @example
 * algorithms.gcra.decide(undefined, { limit: 10, windowMs: 1000, burst: 10 }, Date.now(), 1).decision.allowed; // true
 */
export const algorithms: Record<AlgorithmName, Algorithm<unknown>> = {
  token_bucket: tokenBucket,
  leaky_bucket: leakyBucket,
  gcra,
  fixed_window: fixedWindow,
  sliding_window_log: slidingWindowLog,
  sliding_window_counter: slidingWindowCounter,
};

/**
 * The algorithm names, in a stable order.
 *
 * @example
 * ALGORITHM_NAMES.includes("gcra"); // true
 */
export const ALGORITHM_NAMES = Object.keys(algorithms) as readonly AlgorithmName[];

/**
 * Whether `name` is one of the algorithm names (own keys only, so
 * `"constructor"` is not).
 *
 * @example
 * isAlgorithmName("gcra");  // true
 * isAlgorithmName("token"); // false
 */
export function isAlgorithmName(name: unknown): name is AlgorithmName {
  return typeof name === "string" && Object.hasOwn(algorithms, name);
}

/**
 * The algorithm called `name`; throws a RangeError for an unknown name.
 *
 * @example
 * getAlgorithm("sliding_window_counter").decide(undefined, { limit: 60, windowMs: 60_000, burst: 60 }, 0, 1);
 */
export function getAlgorithm(name: AlgorithmName): Algorithm<unknown> {
  if (!isAlgorithmName(name)) throw new RangeError(`unknown rate-limit algorithm: ${String(name)}`);
  return algorithms[name];
}

/**
 * Algorithms with a capacity (`burst`) apart from their rate per window.
 *
 * @example
 * BUCKET_ALGORITHMS.includes("gcra"); // true
 */
export const BUCKET_ALGORITHMS: readonly AlgorithmName[] = ["token_bucket", "leaky_bucket", "gcra"];
const BUCKETS: ReadonlySet<AlgorithmName> = new Set(BUCKET_ALGORITHMS);

/**
 * Whether the integer arithmetic of `algorithm` (of all six when omitted)
 * stays exact for `limit`. The rules compiler rejects a limit for which this
 * is false rather than let it decide with rounded numbers.
 *
 * All need non-negative safe integers and 1 ≤ windowMs ≤ 2^50 (35 000 years).
 * The buckets (token, leaky, gcra) also need `burst × w + l ≤ 2^52`, with
 * `l/w = limit/windowMs` in lowest terms: fine for every round rate (1e9 per
 * year is 125 per 3942 ms), too big only for odd pairs such as a prime limit
 * near 1e9 per several years. The windowed algorithms have no further bound.
 *
 * @example
 * exactArithmeticOk({ limit: 1e9, windowMs: 31_536_000_000, burst: 1e9 }, "gcra");           // true
 * exactArithmeticOk({ limit: 999_999_937, windowMs: 7 * 31_536_000_000, burst: 1e9 });        // false
 * exactArithmeticOk({ limit: 999_999_937, windowMs: 7 * 31_536_000_000, burst: 1e9 }, "fixed_window"); // true
 */
export function exactArithmeticOk(limit: LimitSpec, algorithm?: AlgorithmName): boolean {
  const { limit: l, windowMs: w, burst: b } = limit;
  const count = (n: number) => Number.isSafeInteger(n) && n >= 0;
  if (!count(l) || !count(b) || !Number.isSafeInteger(w) || w < 1 || w > MAX_WINDOW_MS) return false;
  if (algorithm !== undefined && !BUCKETS.has(algorithm)) return true;
  const r = rate(limit);
  // A double product at most 2^52 was computed exactly (rounding is monotone).
  return b * r.w + r.l <= EXACT_MAX;
}
