/**
 * The MetricsObject's half of the dashboard's traffic: every isolate's
 * batches merged into fixed rings per policy (an hour of 10-second buckets,
 * two 1-minute and six 10-minute heavy-hitters summaries), mirrored in SQLite
 * one row per ring slot, so memory and storage are bounded by
 * MAX_TRAFFIC_POLICIES whatever the traffic (docs/dashboard.md, "Memory").
 * A batch changes only memory; `persist` writes the slots changed since the
 * last one (the object logs each send in one row meanwhile, docs/metrics.md).
 */
import { TRAFFIC_TABLES } from "../../stored/metrics-tables.ts";
import { BucketRing } from "../../metrics/ring.ts";
import type { SketchData } from "../../metrics/sketch.ts";
import {
  FAILURE_COLUMNS,
  HOUR_SLICE_MS,
  MAX_TRAFFIC_POLICIES,
  NOW_SLICE_MS,
  type PolicyRef,
  SERIES_BUCKET_MS,
  SERIES_BUCKETS,
  type TrafficBatch,
} from "../../metrics/traffic-shape.ts";
import { type HeldPolicy, heldPolicy, type TrafficState, type TrafficView, viewOf } from "../../metrics/traffic-view.ts";

type Span = "now" | "hour";
const FAILURES = "";
const MINUTES_PER_HOUR_SLICE = HOUR_SLICE_MS / NOW_SLICE_MS;

/**
 * Rings of every policy, kept in memory and written through to SQLite.
 *
 * @example
 * const store = new TrafficStore(ctx.storage.sql);
 * store.add(batch);
 * store.read(Date.now());
 */
export class TrafficStore {
  private readonly sql: SqlStorage;
  private readonly policies = new Map<string, HeldPolicy>();
  private readonly failures = new BucketRing(SERIES_BUCKETS, FAILURE_COLUMNS.length);
  private dropped = 0;
  /** Ring slots changed since the last persist: key → what to write (the newest period wins a slot). */
  private readonly dirtyBuckets = new Map<string, readonly [string, number]>();
  private readonly dirtySketches = new Map<string, readonly [string, Span, number]>();
  private readonly admitted = new Set<string>();
  private readonly removed = new Set<string>();

  constructor(sql: SqlStorage) {
    this.sql = sql;
    for (const statement of TRAFFIC_TABLES) sql.exec(statement);
    for (const row of sql.exec<{ id: string; ref: string }>("SELECT id, ref FROM traffic_policies")) {
      this.policies.set(row.id, heldPolicy(JSON.parse(row.ref) as PolicyRef));
    }
    for (const row of sql.exec<{ policy: string; bucket: number; counts: string }>("SELECT policy, bucket, counts FROM traffic_buckets")) {
      const ring = row.policy === FAILURES ? this.failures : this.policies.get(row.policy)?.series;
      ring?.add(row.bucket, JSON.parse(row.counts) as number[]);
    }
    for (const row of sql.exec<{ policy: string; span: Span; period: number; data: string }>("SELECT policy, span, period, data FROM traffic_sketches")) {
      this.policies
        .get(row.policy)
        ?.[row.span].at(row.period)
        ?.merge(JSON.parse(row.data) as SketchData);
    }
  }

  /** Merge one isolate's batch. */
  add(batch: TrafficBatch): void {
    this.dropped += batch.dropped;
    for (const [bucket, ...values] of batch.failures) {
      if (this.failures.add(bucket, values)) this.writeBucket(FAILURES, this.failures, bucket);
    }
    for (const traffic of batch.policies) {
      const newest = Math.max(...traffic.buckets.map(([bucket]) => bucket));
      const policy = this.policies.get(traffic.id) ?? this.admit(traffic.id, traffic.ref, newest);
      if (policy === undefined) {
        this.dropped += 1;
        continue;
      }
      for (const [bucket, ...values] of traffic.buckets) {
        if (policy.series.add(bucket, values)) this.writeBucket(traffic.id, policy.series, bucket);
      }
      for (const [minute, sketch] of traffic.minutes) {
        this.mergeSketch(traffic.id, policy, "now", minute, sketch);
        this.mergeSketch(traffic.id, policy, "hour", Math.floor(minute / MINUTES_PER_HOUR_SLICE), sketch);
      }
    }
  }

  /**
   * The last hour as the traffic endpoint shows it.
   *
   * @example
   * store.read(Date.now()).policies[0].series; // [[1767225600, 12, 3, 2, 0], ...]
   */
  read(now: number): TrafficView {
    return viewOf(this.policies, this.failures, this.dropped, now);
  }

  /**
   * The rings of the last hour at `now` as plain data, for a reader that
   * adds several shards up (traffic-view.ts `mergeTraffic`).
   *
   * @example
   * store.state(Date.now()).policies[0].series; // [[176722560, [12, 3, 2, 0]], ...]
   */
  state(now: number): TrafficState {
    const last = Math.floor(now / SERIES_BUCKET_MS);
    const nowSlice = Math.floor(now / NOW_SLICE_MS);
    const hourSlice = Math.floor(now / HOUR_SLICE_MS);
    const policies = [...this.policies].map(([id, policy]) => ({
      id,
      ref: policy.ref,
      series: policy.series.read(last),
      now: policy.now.read(nowSlice).map(([period, summary]) => [period, summary.toData()] as const),
      hour: policy.hour.read(hourSlice).map(([period, summary]) => [period, summary.toData()] as const),
    }));
    return { policies, failures: this.failures.read(last), dropped: this.dropped };
  }

  // A new policy when there is room, or in place of one idle for the whole hour.
  private admit(id: string, ref: PolicyRef, newestBucket: number): HeldPolicy | undefined {
    if (this.policies.size >= MAX_TRAFFIC_POLICIES) {
      const idle = [...this.policies].find(([, p]) => p.series.newest() <= newestBucket - SERIES_BUCKETS)?.[0];
      if (idle === undefined) return undefined;
      this.policies.delete(idle);
      this.removed.add(idle);
      this.admitted.delete(idle);
    }
    const policy = heldPolicy(ref);
    this.policies.set(id, policy);
    this.admitted.add(id);
    return policy;
  }

  /**
   * Write what changed since the last persist: policies replaced and
   * admitted, then each changed ring slot once.
   *
   * @example
   * store.persist();
   */
  persist(): void {
    for (const id of this.removed) {
      for (const table of ["traffic_policies WHERE id", "traffic_buckets WHERE policy", "traffic_sketches WHERE policy"]) {
        this.sql.exec(`DELETE FROM ${table} = ?`, id);
      }
    }
    this.removed.clear();
    for (const id of this.admitted) {
      const policy = this.policies.get(id);
      if (policy !== undefined) this.sql.exec("INSERT OR REPLACE INTO traffic_policies (id, ref) VALUES (?, ?)", id, JSON.stringify(policy.ref));
    }
    this.admitted.clear();
    for (const [id, bucket] of this.dirtyBuckets.values()) {
      const ring = id === FAILURES ? this.failures : this.policies.get(id)?.series;
      if (ring === undefined) continue;
      this.sql.exec(
        "INSERT OR REPLACE INTO traffic_buckets (policy, slot, bucket, counts) VALUES (?, ?, ?, ?)",
        id,
        bucket % ring.size,
        bucket,
        JSON.stringify(ring.get(bucket)),
      );
    }
    this.dirtyBuckets.clear();
    for (const [id, span, period] of this.dirtySketches.values()) {
      const ring = this.policies.get(id)?.[span];
      const summary = ring?.at(period);
      if (ring === undefined || summary === undefined) continue;
      this.sql.exec(
        "INSERT OR REPLACE INTO traffic_sketches (policy, span, slot, period, data) VALUES (?, ?, ?, ?, ?)",
        id,
        span,
        period % ring.size,
        period,
        JSON.stringify(summary.toData()),
      );
    }
    this.dirtySketches.clear();
  }

  private mergeSketch(id: string, policy: HeldPolicy, span: Span, period: number, sketch: SketchData): void {
    const ring = policy[span];
    const summary = ring.at(period);
    if (summary === undefined) return;
    summary.merge(sketch);
    const key = `${id}\u0000${span}\u0000${period % ring.size}`;
    if ((this.dirtySketches.get(key)?.[2] ?? -1) <= period) this.dirtySketches.set(key, [id, span, period]);
  }

  private writeBucket(id: string, ring: BucketRing, bucket: number): void {
    const key = `${id}\u0000${bucket % ring.size}`;
    if ((this.dirtyBuckets.get(key)?.[1] ?? -1) <= bucket) this.dirtyBuckets.set(key, [id, bucket]);
  }
}
