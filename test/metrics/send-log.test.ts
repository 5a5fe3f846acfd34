/**
 * A metrics shard writes per fold, not per send (docs/metrics.md, "Where
 * counts go"): a send only adds to memory; the sums reach the tables once
 * per FOLD_MS (by a send, else by an alarm) and before every read. What a
 * read showed survives a restart; a restart loses at most the sends since
 * the last fold, which no read showed. A `sends` log left by a deploy from
 * before is applied and folded at start. Rows written are read from
 * SQLite's own count (each statement's `rowsWritten`), in a real object.
 */
import { env } from "cloudflare:workers";
import { evictAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/config.ts";
import { FOLD_MS, type MetricsObject } from "../../src/durable/metrics/metrics-object.ts";
import type { Sample } from "../../src/metrics/samples.ts";
import { TrafficLog } from "../../src/metrics/traffic.ts";
import { tapWrites } from "../support/storage-writes.ts";
import { T0, delta, five } from "../support/traffic-records.ts";

const metrics = (env as unknown as Env).METRICS;

/** A send as an isolate makes it: 40 series and the dashboard's traffic of 4 policies. */
function sendOf(step: number, log: TrafficLog, everyMs = 5_000): [Sample[], ReturnType<TrafficLog["take"]>, number] {
  const at = T0 + step * everyMs;
  for (let p = 0; p < 4; p++) log.record("api", `d${p}`, five, delta(step % 3, step % 2), [{ key: "user", value: `u${step % 7}` }], at);
  const samples = Array.from({ length: 40 }, (_, i) => ({
    name: "ratelimit_service_rate_limit_total_hits",
    labels: [["domain", "api"] as const, ["descriptor", `d${i}`] as const],
    value: 1 + (step % 3),
  }));
  return [samples, log.take(), at];
}

const sorted = (samples: unknown) => [...(samples as Sample[])].sort((a, b) => (a.labels[1][1] < b.labels[1][1] ? -1 : 1));
const total = (samples: unknown) => (samples as Sample[]).reduce((sum, s) => sum + s.value, 0);

describe("a metrics shard's writes", () => {
  // Breaks tried: add() folding on every send (the old write-through: 88 rows a send), and add() logging each
  // send as a row again (1 row a send between folds): each failed this.
  it("are the fold's, once per FOLD_MS, and none for a send between folds", async () => {
    expect(FOLD_MS).toBe(30_000);
    const stub = metrics.getByName(`send-log-${Date.now()}`);
    const { written, alarms } = await runInDurableObject(stub, (instance: MetricsObject, state) => {
      const writes = tapWrites(state.storage);
      const log = new TrafficLog();
      const perSend: number[] = [];
      // 10 minutes of sends, one every 5 s.
      for (let step = 0; step < 120; step++) {
        const before = writes.rows();
        instance.add(...sendOf(step, log));
        perSend.push(writes.rows() - before);
      }
      writes.restore();
      return { written: perSend, alarms: writes.alarms() };
    });
    const folds = written.filter((rows) => rows > 0).length;
    // The first send folds, then every sixth (30 s of sends 5 s apart); the others write nothing.
    expect(folds).toBe(20);
    expect(written.filter((_, step) => step % 6 !== 0)).toEqual(new Array(100).fill(0));
    // One alarm set per fold at most (each a row written), for a stream that stops.
    expect(alarms).toBeLessThanOrEqual(folds);
    const rows = written.reduce((a, b) => a + b, 0);
    console.log(JSON.stringify({ event: "metrics_rows_per_fold", sends: written.length, folds, alarms, rows, rows_per_send: rows / written.length }));
  });

  it("fold at the alarm what a stream that stopped left", async () => {
    const stub = metrics.getByName(`send-log-alarm-${Date.now()}`);
    const log = new TrafficLog();
    await stub.add(...sendOf(0, log));
    await stub.add(...sendOf(1, log));
    const stored = () => runInDurableObject(stub, (_: MetricsObject, state) => state.storage.sql.exec("SELECT sum(value) AS n FROM samples").one().n);
    const before = await stored();
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await stored()).toBeGreaterThan(before as number);
    // Run twice (alarms are at least once): nothing changes.
    const after = await stored();
    await runInDurableObject(stub, (instance: MetricsObject) => instance.alarm());
    expect(await stored()).toBe(after);
  });

  it("show on a read only what is stored, so a restart never takes back what a scrape showed", async () => {
    const name = `send-log-restart-${Date.now()}`;
    const shard = metrics.getByName(name);
    const log = new TrafficLog();
    for (let step = 0; step < 20; step++) await shard.add(...sendOf(step, log));
    const shown = sorted(await shard.read());
    // Sends after the read, before any fold: lost by a restart, and never shown.
    for (let step = 20; step < 23; step++) await shard.add(...sendOf(step, log));
    await evictAllDurableObjects();
    const after = sorted(await shard.read());
    expect(after).toEqual(shown);
    expect(total(shown)).toBeGreaterThan(20 * 40);
  });

  it("apply and fold at start the sends a deploy from before logged and did not fold", async () => {
    const shard = metrics.getByName(`send-log-old-${Date.now()}`);
    const log = new TrafficLog();
    await shard.add(...sendOf(0, log));
    const before = total(await shard.read());
    const [samples, traffic, at] = sendOf(1, log);
    await runInDurableObject(shard, (_: MetricsObject, state) => {
      const folded = state.storage.sql.exec<{ seq: number }>("SELECT seq FROM sends_folded WHERE id = 0").toArray()[0]?.seq ?? 0;
      state.storage.sql.exec(
        "INSERT OR REPLACE INTO sends (slot, seq, at, samples, traffic) VALUES (?, ?, ?, ?, ?)",
        (folded + 1) % 64,
        folded + 1,
        at,
        JSON.stringify(samples),
        JSON.stringify(traffic),
      );
    });
    await evictAllDurableObjects();
    expect(total(await shard.read())).toBe(before + total(samples));
    // Folded once: another restart does not apply it again.
    await evictAllDurableObjects();
    expect(total(await shard.read())).toBe(before + total(samples));
  });
});
