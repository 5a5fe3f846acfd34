/**
 * The MetricsObject's rings as `GET /__ratelimit/traffic` answers them: per
 * policy the non-empty buckets of the last hour, their totals, and the keys
 * most limited right now and over the hour (docs/dashboard.md, "Endpoints").
 */
// @ts-nocheck

import type { BucketRing, SlotRing } from "./ring.ts";
import { HeavyHitters } from "./sketch.ts";
import { FAILURE_COLUMNS, HOUR_SLICE_MS, NOW_SLICE_MS, type PolicyRef, SERIES_BUCKET_MS, SERIES_BUCKETS, SERIES_COLUMNS } from "./traffic-shape.ts";

/** Keys shown per policy and span. */
export const TOP_KEYS = 10;

/** The most limited keys of a span: counts are lower bounds, `max` the upper bound (count + error). */
export interface TopKeys {
  /** Limited hits in the span, all keys together (N). */
  readonly total: number;
  /** The most any count may be below its key's true count; at most total / (SKETCH_COUNTERS + 1). */
  readonly error: number;
  readonly keys: readonly { readonly key: string; readonly count: number; readonly max: number }[];
}

/** One policy's last hour. */
export interface PolicyView extends PolicyRef {
  readonly totals: Readonly<Record<(typeof SERIES_COLUMNS)[number], number>>;
  /** `[bucket start (Unix seconds), ...columns]`, non-empty buckets only, oldest first. */
  readonly series: readonly (readonly number[])[];
  readonly top_now: TopKeys;
  readonly top_hour: TopKeys;
}

/** The whole answer. */
export interface TrafficView {
  readonly bucket_seconds: number;
  /** Start of the oldest and of the newest bucket of the hour shown (Unix seconds). */
  readonly from: number;
  readonly to: number;
  readonly columns: readonly string[];
  readonly policies: readonly PolicyView[];
  readonly failures: {
    readonly columns: readonly string[];
    readonly totals: Readonly<Record<string, number>>;
    readonly series: readonly (readonly number[])[];
  };
  /** Policies or records left out because a bound was reached (since the object started). */
  readonly dropped: number;
}

/** One policy's rings, as traffic-store.ts keeps them. */
export interface HeldPolicy {
  readonly ref: PolicyRef;
  readonly series: BucketRing;
  readonly now: SlotRing<HeavyHitters>;
  readonly hour: SlotRing<HeavyHitters>;
}

/**
 * The view at `now` (ms).
 *
 * @example
 * viewOf(policies, failures, 0, Date.now()).policies[0].totals.limited; // 42
 */
export function viewOf(policies: ReadonlyMap<string, HeldPolicy>, failures: BucketRing, dropped: number, now: number): TrafficView {
  const last = Math.floor(now / SERIES_BUCKET_MS);
  const views: PolicyView[] = [];
  for (const policy of policies.values()) {
    const { rows, totals } = rowsOf(policy.series, last, SERIES_COLUMNS);
    const top_now = topOf(policy.now, Math.floor(now / NOW_SLICE_MS));
    const top_hour = topOf(policy.hour, Math.floor(now / HOUR_SLICE_MS));
    if (rows.length === 0 && top_hour.total === 0) continue;
    views.push({ ...policy.ref, totals, series: rows, top_now, top_hour });
  }
  views.sort((a, b) => compare(a.domain, b.domain) || compare(a.descriptor, b.descriptor) || compare(a.limit, b.limit));
  const failed = rowsOf(failures, last, FAILURE_COLUMNS);
  const seconds = SERIES_BUCKET_MS / 1000;
  return {
    bucket_seconds: seconds,
    from: (last - SERIES_BUCKETS + 1) * seconds,
    to: last * seconds,
    columns: ["time", ...SERIES_COLUMNS],
    policies: views,
    failures: { columns: ["time", ...FAILURE_COLUMNS], totals: failed.totals, series: failed.rows },
    dropped,
  };
}

function rowsOf<C extends string>(ring: BucketRing, last: number, columns: readonly C[]) {
  const totals = Object.fromEntries(columns.map((c) => [c, 0])) as Record<C, number>;
  const rows: number[][] = [];
  for (const [bucket, counts] of ring.read(last)) {
    if (counts.every((n) => n === 0)) continue;
    rows.push([(bucket * SERIES_BUCKET_MS) / 1000, ...counts]);
    for (const [i, c] of columns.entries()) totals[c] += counts[i];
  }
  return { rows, totals };
}

function topOf(ring: SlotRing<HeavyHitters>, last: number): TopKeys {
  const merged = new HeavyHitters();
  for (const [, summary] of ring.read(last)) merged.merge(summary.toData());
  const { total, error } = merged.toData();
  return { total, error, keys: merged.top(TOP_KEYS).map(([key, count]) => ({ key, count, max: count + error })) };
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
