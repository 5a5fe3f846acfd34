/**
 * Advice on one limit from its replay (docs/advisor.md, "Advice"): how many
 * active keys hit it, whether the keys it refuses look legitimate or
 * abusive, whether it ever fires, and a limit suggested from the keys'
 * busiest windows.
 */

/** A refused key is abusive when its busiest window asked for more than this many times the limit. */
export const ABUSE_FACTOR = 2;

/** The percentile of per-key peaks the suggested limit is taken at. */
export const SUGGESTION_PERCENTILE = 99;

/** One key's arrivals under a limit, in clock order. */
export interface KeyArrivals {
  readonly times: number[];
  readonly costs: number[];
  refusals: number;
}

/** What `adviseLimit` says. */
export interface LimitAdvice {
  /** Sampled keys that met the limit. */
  readonly keys: number;
  /** Share of them it refused at least once, in %. */
  readonly keys_hit_pct: number;
  /** Refused keys whose busiest window asked for at most ABUSE_FACTOR × the limit. */
  readonly legitimate_refused: number;
  /** Refused keys whose busiest window asked for more. */
  readonly abusive_refused: number;
  /** The limit met traffic and refused none of it. */
  readonly never_fires: boolean;
  /** The SUGGESTION_PERCENTILE of per-key peak hits per window (null: no keys). */
  readonly suggested_limit: { readonly percentile: number; readonly value: number; readonly keys: number } | null;
}

/**
 * The most hits a key asked for within any `windowMs` (every arrival's
 * trailing window, refused arrivals included: it is demand, not what was let through).
 *
 * @example
 * peakPerWindow({ times: [0, 10, 2000], costs: [1, 1, 1], refusals: 0 }, 1000); // 2
 */
export function peakPerWindow(key: KeyArrivals, windowMs: number): number {
  let peak = 0;
  let sum = 0;
  let start = 0;
  for (let i = 0; i < key.times.length; i++) {
    sum += key.costs[i];
    while (key.times[start] <= key.times[i] - windowMs) sum -= key.costs[start++];
    if (sum > peak) peak = sum;
  }
  return peak;
}

/**
 * Nearest-rank percentile of `values` (at least one).
 *
 * @example
 * percentile([1, 2, 3, 4], 50); // 2
 */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)];
}

/**
 * Advice on a limit of `limit` hits per `windowMs`, from its keys' arrivals.
 *
 * @example
 * adviseLimit(keys, 10, 60_000, 40).suggested_limit; // { percentile: 99, value: 7, keys: 12 }
 */
export function adviseLimit(keys: ReadonlyMap<string, KeyArrivals>, limit: number, windowMs: number, refusals: number): LimitAdvice {
  const peaks: number[] = [];
  let hit = 0;
  let legitimate = 0;
  let abusive = 0;
  for (const key of keys.values()) {
    const peak = peakPerWindow(key, windowMs);
    peaks.push(peak);
    if (key.refusals === 0) continue;
    hit += 1;
    if (peak > ABUSE_FACTOR * limit) abusive += 1;
    else legitimate += 1;
  }
  return {
    keys: keys.size,
    keys_hit_pct: keys.size === 0 ? 0 : roundPct(hit / keys.size),
    legitimate_refused: legitimate,
    abusive_refused: abusive,
    never_fires: keys.size > 0 && refusals === 0,
    suggested_limit: peaks.length === 0 ? null : { percentile: SUGGESTION_PERCENTILE, value: percentile(peaks, SUGGESTION_PERCENTILE), keys: peaks.length },
  };
}

/**
 * A share as a percentage with two decimals.
 *
 * @example
 * roundPct(1 / 3); // 33.33
 */
export function roundPct(share: number): number {
  return Math.round(share * 10_000) / 100;
}
