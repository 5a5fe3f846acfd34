/**
 * The MetricsObject's rings as `GET /__ratelimit/traffic` answers them: per
 * policy the non-empty buckets of the last hour, their totals, and the keys
 * most limited right now and over the hour (docs/dashboard.md, "Endpoints").
 */
import { BucketRing, SlotRing } from "./ring.ts";
import { HeavyHitters, type SketchData } from "./sketch.ts";
import {
  FAILURE_COLUMNS,
  HOUR_SLICE_MS,
  HOUR_SLICES,
  NOW_SLICE_MS,
  NOW_SLICES,
  type PolicyRef,
  SERIES_BUCKET_MS,
  SERIES_BUCKETS,
  SERIES_COLUMNS,
} from "./traffic-shape.ts";

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
 * One policy's rings, empty.
 *
 * @example
 * const policy = heldPolicy({ domain: "api", descriptor: "user", limit: "five", window_seconds: 60, shadow: false });
 */
export function heldPolicy(ref: PolicyRef): HeldPolicy {
  return {
    ref,
    series: new BucketRing(SERIES_BUCKETS, SERIES_COLUMNS.length),
    now: new SlotRing(NOW_SLICES, () => new HeavyHitters()),
    hour: new SlotRing(HOUR_SLICES, () => new HeavyHitters()),
  };
}

/** One metrics shard's rings of the last hour as plain data (traffic-store.ts `state`), cloned over RPC. */
export interface TrafficState {
  readonly policies: readonly {
    readonly id: string;
    readonly ref: PolicyRef;
    readonly series: readonly (readonly [number, readonly number[]])[];
    readonly now: readonly (readonly [number, SketchData])[];
    readonly hour: readonly (readonly [number, SketchData])[];
  }[];
  readonly failures: readonly (readonly [number, readonly number[]])[];
  readonly dropped: number;
}

/**
 * The view at `now` of several shards' rings added up: counts summed per
 * bucket, summaries merged (a merge keeps the error bound, docs/dashboard.md).
 *
 * @example
 * const view = mergeTraffic(await Promise.all(shards.map((s) => s.trafficState(now))), now);
 */
export function mergeTraffic(states: readonly TrafficState[], now: number): TrafficView {
  const policies = new Map<string, HeldPolicy>();
  const failures = new BucketRing(SERIES_BUCKETS, FAILURE_COLUMNS.length);
  let dropped = 0;
  for (const state of states) {
    dropped += state.dropped;
    for (const [bucket, counts] of state.failures) failures.add(bucket, counts);
    for (const traffic of state.policies) {
      let policy = policies.get(traffic.id);
      if (policy === undefined) policies.set(traffic.id, (policy = heldPolicy(traffic.ref)));
      for (const [bucket, counts] of traffic.series) policy.series.add(bucket, counts);
      for (const [period, sketch] of traffic.now) policy.now.at(period)?.merge(sketch);
      for (const [period, sketch] of traffic.hour) policy.hour.at(period)?.merge(sketch);
    }
  }
  return viewOf(policies, failures, dropped, now);
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
