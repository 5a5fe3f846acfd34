/**
 * A metrics shard writes one row per send (docs/metrics.md, "Where counts
 * go"): the send, in the `sends` log; its sums and rings reach the tables at
 * the fold (every SENDS_PER_FOLD sends, and on an instance's first send).
 * What it shows never depends on whether a send was folded, and a restart
 * with sends left unfolded shows the same. Rows written are read from
 * SQLite's own count (each statement's `rowsWritten`), in a real object.
 */
import { env } from "cloudflare:workers";
import { evictAllDurableObjects, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/config.ts";
import type { MetricsObject } from "../../src/durable/metrics/metrics-object.ts";
import type { Sample } from "../../src/metrics/samples.ts";
import type { StatDelta } from "../../src/metrics/stats.ts";
import { TrafficLog } from "../../src/metrics/traffic.ts";
import { SENDS_PER_FOLD } from "../../src/stored/metrics-tables.ts";

const metrics = (env as unknown as Env).METRICS;
const T0 = 1_767_225_600_000;
const five = { name: "five", windowMs: 60_000, shadow: false };
const delta = (within: number, over: number): StatDelta => ({
  total_hits: within + over,
  within_limit: within,
  over_limit: over,
  near_limit: 0,
  shadow_mode: 0,
});

/** A send as an isolate makes it: 40 series and the dashboard's traffic of 4 policies. */
function sendOf(step: number, log: TrafficLog): [Sample[], ReturnType<TrafficLog["take"]>, number] {
  const at = T0 + step * 5_000;
  for (let p = 0; p < 4; p++) log.record("api", `d${p}`, five, delta(step % 3, step % 2), [{ key: "user", value: `u${step % 7}` }], at);
  const samples = Array.from({ length: 40 }, (_, i) => ({
    name: "ratelimit_service_rate_limit_total_hits",
    labels: [["domain", "api"] as const, ["descriptor", `d${i}`] as const],
    value: 1 + (step % 3),
  }));
  return [samples, log.take(), at];
}

describe("a metrics shard's writes", () => {
  // Break tried: add() folding on every send (the old write-through): 40+ rows a send, and this failed.
  it("are one row per send between folds, and the fold's rows every SENDS_PER_FOLD sends", async () => {
    expect(SENDS_PER_FOLD).toBe(64);
    const stub = metrics.getByName(`send-log-${Date.now()}`);
    const written = await runInDurableObject(stub, (instance: MetricsObject, state) => {
      const sql = state.storage.sql;
      const exec = sql.exec.bind(sql);
      let rows = 0;
      (sql as { exec: typeof sql.exec }).exec = ((query: string, ...bindings: unknown[]) => {
        const cursor = exec(query, ...bindings);
        cursor.toArray();
        rows += cursor.rowsWritten;
        return cursor;
      }) as typeof sql.exec;
      const log = new TrafficLog();
      const perSend: number[] = [];
      for (let step = 0; step < 2 * SENDS_PER_FOLD + 1; step++) {
        const before = rows;
        instance.add(...sendOf(step, log));
        perSend.push(rows - before);
      }
      (sql as { exec: typeof sql.exec }).exec = exec;
      return perSend;
    });
    // The instance's first send folds; then one row a send until the log is full, and the fold with it.
    expect(written[0]).toBeGreaterThan(40);
    expect(written.slice(1, SENDS_PER_FOLD)).toEqual(new Array(SENDS_PER_FOLD - 1).fill(1));
    expect(written[SENDS_PER_FOLD]).toBeGreaterThan(40);
    expect(written.slice(SENDS_PER_FOLD + 1, 2 * SENDS_PER_FOLD)).toEqual(new Array(SENDS_PER_FOLD - 1).fill(1));
    const total = written.reduce((a, b) => a + b, 0);
    console.log(
      JSON.stringify({
        event: "metrics_rows_per_send",
        sends: written.length,
        rows: total,
        fold_rows: [written[0], written[SENDS_PER_FOLD], written[2 * SENDS_PER_FOLD]],
      }),
    );
  });

  it("show the same, folded or not, and after a restart with sends left in the log", async () => {
    const name = `send-log-restart-${Date.now()}`;
    const folded = metrics.getByName(`${name}-folded`);
    const logged = metrics.getByName(name);
    const log = new TrafficLog();
    const sends = Array.from({ length: 20 }, (_, step) => sendOf(step, log));
    for (const send of sends) {
      await logged.add(...send);
      await folded.add(...send);
      // The reference folds every send: a fresh instance each time.
      await runInDurableObject(folded, (instance: MetricsObject) => {
        (instance as unknown as { foldedOnce: boolean }).foldedOnce = false;
      });
    }
    const at = sends.at(-1)?.[2] ?? T0;
    const sorted = (samples: unknown) => [...(samples as Sample[])].sort((a, b) => (a.labels[1][1] < b.labels[1][1] ? -1 : 1));
    const reference = { samples: sorted(await folded.read()), traffic: await folded.trafficView(at) };
    expect({ samples: sorted(await logged.read()), traffic: await logged.trafficView(at) }).toEqual(reference);
    const unfolded = await runInDurableObject(
      logged,
      (_: MetricsObject, state) => state.storage.sql.exec("SELECT count(*) AS n FROM sends WHERE seq > (SELECT seq FROM sends_folded)").one().n,
    );
    expect(unfolded).toBe(19);
    await evictAllDurableObjects();
    expect({ samples: sorted(await logged.read()), traffic: await logged.trafficView(at) }).toEqual(reference);
    expect(reference.samples[0].value).toBeGreaterThan(20);
  });
});
