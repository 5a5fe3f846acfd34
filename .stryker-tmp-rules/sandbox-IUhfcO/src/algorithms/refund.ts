/**
 * Giving back hits a request was charged (`count_when`, see
 * docs/response-limits.md): `refund(name, state, limit, now, chargedAt, k)`
 * returns the state with the `k` hits charged at `chargedAt` taken out
 * again, or as much of them as can be taken out without ever crediting more
 * than the exact answer would.
 *
 * - `fixed_window`, `sliding_window_counter`: exact. The hits are counted
 *   in the aligned window holding `chargedAt`; while the state still holds
 *   that window (as its current one, or for the counter also as its
 *   previous one) they are subtracted there, else they had expired anyway.
 * - `sliding_window_log`: exact. Unless expired, the hits were filed in the
 *   first entry at or after `chargedAt` (later hits only append); they
 *   leave that entry.
 *   Taking the newest entries instead would keep the older, sooner-expiring
 *   hit and so free quota too early.
 * - `token_bucket`, `leaky_bucket`, `gcra`: exact when refunded at the
 *   instant of the charge. Later, the bucket without the charge might have
 *   filled up and lost part of the refill, which the state cannot tell, so
 *   the credit is `k` less the refill since `chargedAt` (at `limit` per
 *   window), never below 0: never more than the exact credit.
 */
// @ts-nocheck

import { ceilDiv, checkArgs, floorDiv, rate, windowStart } from "./arith.ts";
import type { FixedWindowState } from "./fixed-window.ts";
import type { GcraState } from "./gcra.ts";
import type { LeakyBucketState } from "./leaky-bucket.ts";
import type { SlidingWindowCounterState } from "./sliding-window-counter.ts";
import type { SlidingWindowLogState } from "./sliding-window-log.ts";
import type { TokenBucketState } from "./token-bucket.ts";
import type { AlgorithmName, LimitSpec } from "./types.ts";

type Refund<S> = (state: S, limit: LimitSpec, now: number, chargedAt: number, k: number) => S;

// Scaled credit (units of 1/w token) a bucket may safely give back at `at`.
function bucketCredit(limit: LimitSpec, at: number, chargedAt: number, k: number): number {
  const { l, w } = rate(limit);
  const elapsed = Math.max(0, at - chargedAt);
  // Compare before multiplying so a long gap cannot overflow.
  if (elapsed >= ceilDiv(k * w, Math.max(l, 1))) return 0;
  return k * w - elapsed * l;
}

const tokenBucket: Refund<TokenBucketState> = (s, limit, now, chargedAt, k) => {
  const { l, w } = rate(limit);
  const cap = limit.burst * w;
  const at = Math.max(now, s.t);
  const gap = cap - s.n;
  const have = gap <= 0 || at - s.t >= ceilDiv(gap, l) ? cap : s.n + (at - s.t) * l;
  return { t: at, n: Math.min(cap, have + bucketCredit(limit, at, chargedAt, k)) };
};

const leakyBucket: Refund<LeakyBucketState> = (s, limit, now, chargedAt, k) => {
  const { l } = rate(limit);
  const at = Math.max(now, s.t);
  const level = s.v <= 0 || at - s.t >= ceilDiv(s.v, l) ? 0 : s.v - (at - s.t) * l;
  return { t: at, v: Math.max(0, level - bucketCredit(limit, at, chargedAt, k)) };
};

const gcra: Refund<GcraState> = (s, limit, now, chargedAt, k) => {
  const { l } = rate(limit);
  // The TAT's lead over now, in 1/l ms, as `gcra.decide` measures it.
  const ahead = s.t >= now ? (s.t - now) * l + s.r : 0;
  const a = Math.max(0, ahead - bucketCredit(limit, now, chargedAt, k));
  const whole = floorDiv(a, l);
  return { t: now + whole, r: a - whole * l };
};

const fixedWindow: Refund<FixedWindowState> = (s, limit, _now, chargedAt, k) =>
  s.w === windowStart(chargedAt, limit.windowMs) ? { w: s.w, c: Math.max(0, s.c - k) } : s;

const slidingWindowCounter: Refund<SlidingWindowCounterState> = (s, limit, _now, chargedAt, k) => {
  const charged = windowStart(chargedAt, limit.windowMs);
  if (s.w === charged) return { w: s.w, p: s.p, c: Math.max(0, s.c - k) };
  if (s.w === charged + limit.windowMs) return { w: s.w, p: Math.max(0, s.p - k), c: s.c };
  return s;
};

const slidingWindowLog: Refund<SlidingWindowLogState> = (log, limit, now, chargedAt, k) => {
  // Expired already; its entry may be gone and the first one after it another request's.
  if (chargedAt <= now - limit.windowMs) return log;
  const i = log.findIndex(([ts]) => ts >= chargedAt);
  if (i < 0) return log;
  const left = log[i][1] - k;
  const kept = log.slice();
  if (left > 0) kept[i] = [log[i][0], left];
  else kept.splice(i, 1);
  return kept;
};

// Each takes its own state; `refund` hands it the state of its algorithm.
type AnyRefund = (state: never, limit: LimitSpec, now: number, chargedAt: number, k: number) => unknown;

const REFUNDS: Record<AlgorithmName, AnyRefund> = {
  token_bucket: tokenBucket,
  leaky_bucket: leakyBucket,
  gcra,
  fixed_window: fixedWindow,
  sliding_window_counter: slidingWindowCounter,
  sliding_window_log: slidingWindowLog,
};

/**
 * Algorithms whose refund is exact at any later instant, not only at the
 * instant of the charge.
 *
 * @example
 * EXACT_REFUND.has("fixed_window"); // true
 * EXACT_REFUND.has("gcra");         // false: exact only at the charge's instant
 */
export const EXACT_REFUND: ReadonlySet<AlgorithmName> = new Set(["fixed_window", "sliding_window_counter", "sliding_window_log"]);

/**
 * Give back `k` hits charged at `chargedAt` to the state of `algorithm` at
 * `now` (see the module comment for how exact each algorithm is). A missing
 * state (the counter expired or was dropped) stays missing.
 *
 * @example
 * const spec = { limit: 3, windowMs: 1000, burst: 3 };
 * const { state } = fixedWindow.decide(undefined, spec, 100, 1); // { w: 0, c: 1 }
 * refund("fixed_window", state, spec, 400, 100, 1);               // { w: 0, c: 0 }
 */
export function refund(algorithm: AlgorithmName, state: unknown, limit: LimitSpec, now: number, chargedAt: number, k: number): unknown {
  checkArgs(limit, now, k);
  if (state === undefined || k === 0 || limit.limit === 0) return state;
  return (REFUNDS[algorithm] as Refund<unknown>)(state, limit, now, chargedAt, k);
}
