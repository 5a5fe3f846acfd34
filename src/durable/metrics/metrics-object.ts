/**
 * MetricsObject: one metrics shard's sum of its isolates' metric counts, in
 * SQLite so the counters survive eviction and redeploys (Prometheus
 * counters should only go down when they really reset). A send only adds
 * to memory; the sums are folded into the tables once per FOLD_MS (by the
 * send that finds the last fold that old, else by an alarm), and before
 * every read, so rows written grow with time and scrapes, not with the
 * isolates that send (docs/metrics.md, "Where counts go"). What a read
 * returned is always stored: a restart loses only sums no read has shown.
 */
import { DurableObject } from "cloudflare:workers";
import type { SampleRow, SampleSend } from "../../advisor/sample-row.ts";
import { SampleStore } from "./sample-store.ts";
import { SAMPLES_SEEN_AT_COLUMN, SAMPLES_TABLE, SENDS_TABLES } from "../../stored/metrics-tables.ts";
import { foldStep } from "../../metrics/fold-pace.ts";
import { cutLabel } from "../../metrics/labels.ts";
import { OVERFLOW, type Sample, sampleId } from "../../metrics/samples.ts";
import { METRICS_SHARDS } from "../../metrics/shards.ts";
import type { TrafficBatch } from "../../metrics/traffic-shape.ts";
import { TrafficStore } from "./traffic-store.ts";
import type { TrafficState, TrafficView } from "../../metrics/traffic-view.ts";

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

export { FOLD_MS } from "../../metrics/fold-pace.ts";

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
  /** This shard's part of the traffic sample (docs/advisor.md, "Sample"). */
  private readonly sample: SampleStore;
  /** Sample sums of the sends not folded yet, by series id. */
  private readonly unfolded = new Map<string, { name: string; labels: readonly (readonly [string, string])[]; value: number; seenAt: number }>();
  /** Series dropped as idle whose rows the next fold deletes (read() leaves those rows out until then). */
  private readonly pruned = new Set<string>();
  /** The last send of the `sends` log (written by deploys before FOLD_MS) applied, and the last folded. */
  private seq = 0;
  private folded = 0;
  /** When the last fold was (a fresh instance's first send folds), and whether an alarm will fold. */
  private foldedAt = -Infinity;
  private alarmSet = false;

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
    this.sample = new SampleStore(this.sql);
    for (const statement of SENDS_TABLES) this.sql.exec(statement);
    this.folded = this.sql.exec<{ seq: number }>("SELECT seq FROM sends_folded WHERE id = 0").toArray()[0]?.seq ?? 0;
    this.seq = this.folded;
    // The sends an evicted instance logged and did not fold: applied again, in order.
    const logged = this.sql.exec<{ seq: number; at: number; samples: string; traffic: string | null }>(
      "SELECT seq, at, samples, traffic FROM sends WHERE seq > ? ORDER BY seq",
      this.folded,
    );
    for (const row of logged) {
      this.apply(JSON.parse(row.samples) as Sample[], row.traffic === null ? undefined : (JSON.parse(row.traffic) as TrafficBatch), row.at);
      this.seq = row.seq;
    }
    if (this.seq > this.folded) this.fold(Date.now());
  }

  /**
   * Add each sample's value to its series, creating series up to MAX_SERIES
   * (label values cut to METRIC_LABEL_MAX_LENGTH), and merge the dashboard's
   * traffic of the same send, in memory: the send writes nothing unless the
   * last fold is FOLD_MS old (then it folds), and else sets one alarm to
   * fold if none is set. `now` is the object's clock unless a test drives
   * it. `sample`: the traffic sample's rows that ride with the send, held
   * until the fold (one row written per domain and fold).
   *
   * @example
   * await stub.add(batch, traffic);
   */
  add(samples: readonly Sample[], traffic?: TrafficBatch, now: number = Date.now(), sample?: SampleSend): void {
    if (sample !== undefined) {
      try {
        this.sample.add(sample, METRICS_SHARDS);
      } catch (error) {
        // The sample never costs the counts of the send it rode with (docs/advisor.md, "Sample").
        console.error(JSON.stringify({ event: "floodgate.sample_write_failed", error: String(error) }));
      }
    }
    this.apply(samples, traffic, now);
    const step = foldStep(now, this.foldedAt, this.alarmSet);
    if (step === "fold") this.fold(now);
    else if (step !== undefined) {
      // One alarm per fold at most (a row written each), for the sums of a stream that stops.
      this.alarmSet = true;
      void this.ctx.storage.setAlarm(Date.now() + step.alarmInMs);
    }
  }

  /**
   * Fold what the sends left in memory. Safe to run twice, late or after a
   * reset: a fold with nothing new writes nothing.
   *
   * @example
   * await runDurableObjectAlarm(stub);
   */
  alarm(): void {
    this.alarmSet = false;
    this.fold(Date.now());
  }

  /** One send's counts into memory (the unfolded sums and the rings). */
  private apply(samples: readonly Sample[], traffic: TrafficBatch | undefined, now: number): void {
    if (traffic !== undefined) this.traffic.add(traffic);
    if (now - this.prunedAt >= PRUNE_EVERY_MS) this.prune(now);
    for (const sample of samples) {
      let target: Pick<Sample, "name" | "labels"> = { name: sample.name, labels: sample.labels.map(([k, v]) => [k, cutLabel(v)] as const) };
      let id = sampleId(target);
      if (!this.series.has(id) && this.series.size >= MAX_SERIES) {
        target = { name: sample.name, labels: sample.labels.map(([k]) => [k, OVERFLOW] as const) };
        id = sampleId(target);
      }
      const held = this.unfolded.get(id);
      if (held === undefined) this.unfolded.set(id, { name: target.name, labels: target.labels, value: sample.value, seenAt: now });
      else {
        held.value += sample.value;
        held.seenAt = now;
      }
      this.series.set(id, now);
    }
  }

  /** Write the unfolded sums, the changed ring slots and the held sample to the tables, after deleting the series pruned. */
  private fold(now: number): void {
    this.foldedAt = now;
    for (const id of this.pruned) this.sql.exec("DELETE FROM samples WHERE id = ?", id);
    this.pruned.clear();
    for (const [id, sum] of this.unfolded) {
      this.sql.exec(
        "INSERT INTO samples (id, name, labels, value, seen_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET value = value + excluded.value, seen_at = excluded.seen_at",
        id,
        sum.name,
        JSON.stringify(sum.labels),
        sum.value,
        sum.seenAt,
      );
    }
    this.unfolded.clear();
    this.traffic.persist();
    this.persistSample();
    if (this.folded === this.seq) return;
    // The log a deploy from before left is folded now: it is not read again.
    this.folded = this.seq;
    this.sql.exec("INSERT OR REPLACE INTO sends_folded (id, seq) VALUES (0, ?)", this.seq);
  }

  private persistSample(): void {
    try {
      this.sample.persist();
    } catch (error) {
      // The sample never costs the counts it rode with (docs/advisor.md, "Sample").
      console.error(JSON.stringify({ event: "floodgate.sample_write_failed", error: String(error) }));
    }
  }

  /** Drop the series nothing was added to for SERIES_IDLE_MS (their rows go at the next fold, by primary key). */
  private prune(now: number): void {
    this.prunedAt = now;
    for (const [id, seenAt] of this.series) {
      if (now - seenAt < SERIES_IDLE_MS) continue;
      this.series.delete(id);
      this.unfolded.delete(id);
      this.pruned.add(id);
    }
  }

  /**
   * Every series with its total, folded first: a scrape never shows a sum
   * a restart could take back (a Prometheus counter would read that as a reset).
   *
   * @example
   * const samples = await stub.read();
   */
  read(): Sample[] {
    if (this.unfolded.size > 0 || this.pruned.size > 0) this.fold(Date.now());
    const sums = new Map<string, Sample>();
    for (const row of this.sql.exec<{ id: string; name: string; labels: string; value: number }>("SELECT id, name, labels, value FROM samples")) {
      // A pruned series' row is gone at the next fold; one that came back since starts from 0.
      if (!this.pruned.has(row.id)) sums.set(row.id, { name: row.name, labels: JSON.parse(row.labels) as [string, string][], value: row.value });
    }
    for (const [id, sum] of this.unfolded) {
      const held = sums.get(id);
      sums.set(id, { name: sum.name, labels: sum.labels, value: (held?.value ?? 0) + sum.value });
    }
    return [...sums.values()];
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

  /**
   * This shard's sampled rows of `domain` from `since` (epoch ms), within
   * `retentionMs` of `now` (the reader's clock, the one rows are stamped with).
   *
   * @example
   * const rows = await stub.sampleRows("api", 0, Date.now(), 7 * 86_400_000);
   */
  sampleRows(domain: string, since: number, now: number, retentionMs: number): SampleRow[] {
    this.persistSample();
    return this.sample.read(domain, since, now, retentionMs);
  }
}
