/**
 * MetricsObject: the sum of every isolate's metric counts, in SQLite so the
 * counters survive eviction and redeploys (Prometheus counters should only
 * go down when they really reset).
 */
import { DurableObject } from "cloudflare:workers";
import { SAMPLES_SEEN_AT_COLUMN, SAMPLES_TABLE } from "../stored/metrics-tables.ts";
import { cutLabel } from "./labels.ts";
import { OVERFLOW, type Sample, sampleId } from "./samples.ts";
import type { TrafficBatch } from "./traffic-shape.ts";
import { TrafficStore } from "./traffic-store.ts";
import type { TrafficState, TrafficView } from "./traffic-view.ts";

/** Most series kept; further new series fold into their `_overflow` series. */
export const MAX_SERIES = 10_000;

/**
 * A series nothing was added to for this long is dropped (docs/metrics.md,
 * "Cardinality"), so values a client sent once do not hold the MAX_SERIES
 * slots for good; one that comes back starts from 0, which Prometheus reads
 * as a counter reset.
 */
export const SERIES_IDLE_MS = 60 * 60 * 1000;

/** Least time between two looks for idle series. */
const PRUNE_EVERY_MS = 60 * 1000;

/**
 * Adds batches of samples and reads them all back.
 *
 * @example
 * await env.METRICS.getByName("global").add([{ name: "x", labels: [], value: 1 }]);
 * const samples = await env.METRICS.getByName("global").read();
 */
export class MetricsObject extends DurableObject {
  private readonly sql: SqlStorage;
  /**
   * Ids of the stored series with when each was last added to, read once at
   * start. Knowing them in memory spares every flush a `count(*)` (which
   * reads every row, and rows read are what SQLite-backed objects bill) and
   * a lookup per sample, and finds idle series without a scan.
   */
  private readonly series = new Map<string, number>();
  private prunedAt = -Infinity;
  /** The dashboard's rings (series and heavy hitters per policy). */
  private readonly traffic: TrafficStore;

  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env as never);
    this.sql = ctx.storage.sql;
    this.sql.exec(SAMPLES_TABLE);
    try {
      // A table from before series aged out: its series count as seen now, so none is dropped sooner than SERIES_IDLE_MS.
      this.sql.exec(SAMPLES_SEEN_AT_COLUMN);
      this.sql.exec("UPDATE samples SET seen_at = ?", Date.now());
    } catch {
      // The column is there.
    }
    for (const row of this.sql.exec<{ id: string; seen_at: number }>("SELECT id, seen_at FROM samples")) this.series.set(row.id, row.seen_at);
    this.traffic = new TrafficStore(this.sql);
  }

  /**
   * Add each sample's value to its series, creating series up to MAX_SERIES
   * (label values cut to METRIC_LABEL_MAX_LENGTH), after dropping the series
   * idle for SERIES_IDLE_MS; and merge the dashboard's traffic of the same
   * send. `now` is the object's clock unless a test drives it.
   *
   * @example
   * await stub.add(batch, traffic);
   */
  add(samples: readonly Sample[], traffic?: TrafficBatch, now: number = Date.now()): void {
    if (traffic !== undefined) this.traffic.add(traffic);
    if (now - this.prunedAt >= PRUNE_EVERY_MS) this.prune(now);
    for (const sample of samples) {
      let target: Pick<Sample, "name" | "labels"> = { name: sample.name, labels: sample.labels.map(([k, v]) => [k, cutLabel(v)] as const) };
      let id = sampleId(target);
      if (!this.series.has(id) && this.series.size >= MAX_SERIES) {
        target = { name: sample.name, labels: sample.labels.map(([k]) => [k, OVERFLOW] as const) };
        id = sampleId(target);
      }
      this.sql.exec(
        "INSERT INTO samples (id, name, labels, value, seen_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET value = value + excluded.value, seen_at = excluded.seen_at",
        id,
        target.name,
        JSON.stringify(target.labels),
        sample.value,
        now,
      );
      this.series.set(id, now);
    }
  }

  /** Drop the series nothing was added to for SERIES_IDLE_MS, by primary key (no scan). */
  private prune(now: number): void {
    this.prunedAt = now;
    for (const [id, seenAt] of this.series) {
      if (now - seenAt < SERIES_IDLE_MS) continue;
      this.sql.exec("DELETE FROM samples WHERE id = ?", id);
      this.series.delete(id);
    }
  }

  /**
   * Every series with its total.
   *
   * @example
   * const samples = await stub.read();
   */
  read(): Sample[] {
    return this.sql
      .exec<{ name: string; labels: string; value: number }>("SELECT name, labels, value FROM samples")
      .toArray()
      .map((row) => ({ name: row.name, labels: JSON.parse(row.labels) as [string, string][], value: row.value }));
  }

  /**
   * The dashboard's last hour at `now` (ms; the object's clock when absent).
   *
   * @example
   * const view = await stub.trafficView();
   */
  trafficView(now: number = Date.now()): TrafficView {
    return this.traffic.read(now);
  }

  /**
   * The rings of the last hour at `now` as plain data, for the traffic
   * endpoint to add every shard up (traffic-view.ts `mergeTraffic`).
   *
   * @example
   * const state = await stub.trafficState(Date.now());
   */
  trafficState(now: number = Date.now()): TrafficState {
    return this.traffic.state(now);
  }
}
