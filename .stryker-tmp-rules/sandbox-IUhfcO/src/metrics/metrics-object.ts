/**
 * MetricsObject: the sum of every isolate's metric counts, in SQLite so the
 * counters survive eviction and redeploys (Prometheus counters should only
 * go down when they really reset).
 */
// @ts-nocheck

import { DurableObject } from "cloudflare:workers";
import { OVERFLOW, type Sample, sampleId } from "./samples.ts";
import type { TrafficBatch } from "./traffic-shape.ts";
import { TrafficStore } from "./traffic-store.ts";
import type { TrafficView } from "./traffic-view.ts";

/** Most series kept; further new series fold into their `_overflow` series. */
export const MAX_SERIES = 10_000;

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
   * Ids of the stored series, read once at start. Knowing them in memory
   * spares every flush a `count(*)` (which reads every row, and rows read
   * are what SQLite-backed objects bill) and a lookup per sample.
   */
  private readonly series = new Set<string>();
  /** The dashboard's rings (series and heavy hitters per policy). */
  private readonly traffic: TrafficStore;

  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env as never);
    this.sql = ctx.storage.sql;
    this.sql.exec("CREATE TABLE IF NOT EXISTS samples (id TEXT PRIMARY KEY, name TEXT NOT NULL, labels TEXT NOT NULL, value REAL NOT NULL)");
    for (const row of this.sql.exec<{ id: string }>("SELECT id FROM samples")) this.series.add(row.id);
    this.traffic = new TrafficStore(this.sql);
  }

  /**
   * Add each sample's value to its series, creating series up to MAX_SERIES,
   * and merge the dashboard's traffic of the same send.
   *
   * @example
   * await stub.add(batch, traffic);
   */
  add(samples: readonly Sample[], traffic?: TrafficBatch): void {
    if (traffic !== undefined) this.traffic.add(traffic);
    for (const sample of samples) {
      let target: Pick<Sample, "name" | "labels"> = sample;
      let id = sampleId(target);
      if (!this.series.has(id) && this.series.size >= MAX_SERIES) {
        target = { name: sample.name, labels: sample.labels.map(([k]) => [k, OVERFLOW] as const) };
        id = sampleId(target);
      }
      this.sql.exec(
        "INSERT INTO samples (id, name, labels, value) VALUES (?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET value = value + excluded.value",
        id,
        target.name,
        JSON.stringify(target.labels),
        sample.value,
      );
      this.series.add(id);
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
}
