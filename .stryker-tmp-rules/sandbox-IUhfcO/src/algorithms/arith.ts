/**
 * Exact integer helpers shared by the algorithms (internal to this folder).
 *
 * Every amount is an integer double. A double holds every integer up to 2^53
 * exactly, so the algorithms keep their scaled amounts below `EXACT_MAX`
 * (2^52), which leaves room to add a timestamp without rounding.
 */
// @ts-nocheck

import type { Decision, LimitSpec } from "./types.ts";

/**
 * Bound on every scaled amount an algorithm stores or forms.
 *
 * @example
 * EXACT_MAX === 2 ** 52; // true
 */
export const EXACT_MAX = 2 ** 52;

/**
 * Longest window the algorithms accept. With timestamps below 2^51 (the
 * year 73 000), `now + 2 × windowMs` still stays below `EXACT_MAX`.
 *
 * @example
 * MAX_WINDOW_MS > 365 * 86_400_000 * 10_000; // true
 */
export const MAX_WINDOW_MS = 2 ** 50;

/**
 * Greatest common divisor of two non-negative integers.
 *
 * @example
 * gcd(1_000, 60_000); // 1000
 */
export function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

/**
 * `floor(a / b)` for integers with |a| ≤ 2^52 and 1 ≤ b ≤ 2^52. Plain double
 * division is exact enough here: a non-integer quotient lies at least 1/b
 * from the nearest integer, more than half an ulp of it while |a| + b < 2^53,
 * so rounding never carries it across that integer.
 *
 * @example
 * floorDiv(7, 2);  // 3
 * floorDiv(-7, 2); // -4
 */
export function floorDiv(a: number, b: number): number {
  return Math.floor(a / b);
}

/**
 * `ceil(a / b)` under the same bounds as `floorDiv`.
 *
 * @example
 * ceilDiv(7, 2); // 4
 * ceilDiv(6, 2); // 3
 */
export function ceilDiv(a: number, b: number): number {
  return Math.ceil(a / b);
}

/**
 * `floor(a × b / d)` for non-negative safe integers and 1 ≤ d ≤ 2^50, exact
 * even when `a × b` passes 2^53: only then does it fall back to BigInt. (A
 * double product that comes out at most 2^52 was computed exactly, because
 * rounding is monotone and 2^52 itself is representable.) A quotient above
 * 2^53 comes back rounded, but monotonically, so comparing it with a safe
 * integer (as the callers do) still gives the exact answer.
 *
 * @example
 * mulDivFloor(1e9, 15_768_000_000, 31_536_000_000); // 500000000
 */
export function mulDivFloor(a: number, b: number, d: number): number {
  const p = a * b;
  if (p <= EXACT_MAX) return floorDiv(p, d);
  return Number((BigInt(a) * BigInt(b)) / BigInt(d));
}

/** The refill rate L/W in lowest terms: `l` units per `w` ms. */
export interface Rate {
  readonly l: number;
  readonly w: number;
}

/**
 * `limit / windowMs` in lowest terms. The bucket algorithms count in units of
 * `1/w` request so that `l` units arrive per ms; reducing the fraction first
 * keeps those units small (1e9 per 365 days becomes 125 per 3942 ms).
 *
 * @example
 * rate({ limit: 60, windowMs: 60_000, burst: 60 }); // { l: 1, w: 1000 }
 */
export function rate(limit: LimitSpec): Rate {
  const g = gcd(limit.limit, limit.windowMs);
  return { l: limit.limit / g, w: limit.windowMs / g };
}

/**
 * Throws a RangeError unless the arguments are the integers the algorithms
 * are defined on. Callers validate input first; this stops a bad value from
 * being silently stored in a counter.
 *
 * @example
 * checkArgs({ limit: 10, windowMs: 1000, burst: 10 }, 1_700_000_000_000, 1); // ok
 * checkArgs({ limit: 10, windowMs: 1000, burst: 10 }, 0, -1); // throws RangeError
 */
export function checkArgs(limit: LimitSpec, now: number, cost: number): void {
  if (!Number.isSafeInteger(now)) throw new RangeError(`now must be an integer ms timestamp, got ${now}`);
  if (!Number.isSafeInteger(cost) || cost < 0) throw new RangeError(`cost must be a non-negative integer, got ${cost}`);
  const { limit: l, windowMs: w, burst: b } = limit;
  if (!Number.isSafeInteger(l) || l < 0) throw new RangeError(`limit must be a non-negative integer, got ${l}`);
  if (!Number.isSafeInteger(b) || b < 0) throw new RangeError(`burst must be a non-negative integer, got ${b}`);
  if (!Number.isSafeInteger(w) || w < 1 || w > MAX_WINDOW_MS) throw new RangeError(`windowMs must be an integer in [1, 2^50], got ${w}`);
}

/**
 * Start of the aligned window (a multiple of `windowMs` since the epoch)
 * that contains `now`.
 *
 * @example
 * windowStart(1_500, 1_000); // 1000
 */
export function windowStart(now: number, windowMs: number): number {
  return now - (((now % windowMs) + windowMs) % windowMs);
}

/**
 * The decision under a limit of 0: nothing ever fits, peeks included, and
 * there is no quota to report or wait for.
 *
 * @example
 * zeroLimit().retryAfterMs; // Infinity
 */
export function zeroLimit(): Decision {
  return { allowed: false, limit: 0, remaining: 0, resetAfterMs: 0, retryAfterMs: Infinity, effectiveWindowMs: Infinity };
}
