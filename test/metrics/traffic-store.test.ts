// The MetricsObject's dashboard rings, fed batches from per-isolate logs at
// chosen times: exact counts per bucket, what survives a restart, and bounded
// memory and storage under a key scan and a policy flood.
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/config.ts";
import type { MetricsObject } from "../../src/durable/metrics/metrics-object.ts";
import { SKETCH_COUNTERS } from "../../src/metrics/sketch.ts";
import { TrafficLog } from "../../src/metrics/traffic.ts";
import { MAX_TRAFFIC_POLICIES, SERIES_BUCKET_MS, SERIES_BUCKETS, type TrafficBatch } from "../../src/metrics/traffic-shape.ts";
import { TrafficStore } from "../../src/durable/metrics/traffic-store.ts";
import { TOP_KEYS } from "../../src/metrics/traffic-view.ts";
import { T0, delta, five } from "../support/traffic-records.ts";

const metrics = (env as unknown as Env).METRICS;
let objects = 0;
const freshObject = () => metrics.getByName(`traffic-store-${Date.now()}-${++objects}`);
const user = (value: string) => [{ key: "user", value }];
const send = (stub: DurableObjectStub<MetricsObject>, batch: TrafficBatch) => stub.add([], batch);

describe("MetricsObject traffic rings", () => {
  it("counts exactly per 10-second bucket over the last hour, whichever isolate sent them", async () => {
    const step = fc.record({
      at: fc.integer({ min: 0, max: 2 * 3_600_000 }),
      isolate: fc.integer({ min: 0, max: 2 }),
      within: fc.integer({ min: 0, max: 3 }),
      over: fc.integer({ min: 0, max: 3 }),
      near: fc.integer({ min: 0, max: 2 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 40 }), async (steps) => {
        const stub = freshObject();
        const logs = [new TrafficLog(), new TrafficLog(), new TrafficLog()];
        const sorted = [...steps].sort((a, b) => a.at - b.at);
        for (const s of sorted) {
          logs[s.isolate].record("api", "user", five, delta(s.within, s.over, s.near), user("alice"), T0 + s.at);
          await send(stub, logs[s.isolate].take());
        }
        const now = T0 + sorted[sorted.length - 1].at;
        const last = Math.floor(now / SERIES_BUCKET_MS);
        const expected = new Map<number, number[]>();
        for (const s of sorted) {
          const bucket = Math.floor((T0 + s.at) / SERIES_BUCKET_MS);
          if (bucket <= last - SERIES_BUCKETS) continue;
          const row = expected.get(bucket) ?? [0, 0, 0, 0];
          for (const [i, n] of [s.within, s.over, s.near, 0].entries()) row[i] += n;
          expected.set(bucket, row);
        }
        const rows = [...expected]
          .filter(([, row]) => row.some((n) => n > 0))
          .sort(([a], [b]) => a - b)
          .map(([bucket, row]) => [(bucket * SERIES_BUCKET_MS) / 1000, ...row]);
        const view = await stub.trafficView(now);
        expect(view.policies.length).toBe(rows.length === 0 ? 0 : 1);
        if (rows.length > 0) expect(view.policies[0].series).toEqual(rows);
      }),
      { numRuns: 15 },
    );
  });

  it("reads the same after a restart (the rings are rebuilt from SQLite)", async () => {
    const stub = freshObject();
    const log = new TrafficLog();
    log.record("api", "user", five, delta(3, 2, 1), user("alice"), T0 + 5_000);
    log.record("api", "user", five, delta(0, 4), user("bob"), T0 + 75_000);
    log.record("api", "trial", { name: "one", windowMs: 60_000, shadow: true }, delta(1, 2, 0, 2), user("carol"), T0 + 80_000);
    log.recordFailure("open", T0 + 80_000);
    await send(stub, log.take());
    const now = T0 + 90_000;
    const before = await stub.trafficView(now);
    expect(before.policies.map((p) => [p.descriptor, p.totals])).toEqual([
      ["trial", { allowed: 1, limited: 0, near_limit: 0, shadow_would_limit: 2 }],
      ["user", { allowed: 3, limited: 6, near_limit: 1, shadow_would_limit: 0 }],
    ]);
    expect(before.policies[1].top_hour.keys).toEqual([
      { key: "user=bob", count: 4, max: 4 },
      { key: "user=alice", count: 2, max: 2 },
    ]);
    // Right now: the last two minutes, so alice (minute 0) has gone and bob (minute 1) stays.
    expect((await stub.trafficView(T0 + 150_000)).policies[1].top_now.keys.map((k) => k.key)).toEqual(["user=bob"]);
    expect(before.failures.totals).toEqual({ failure_open: 1, failure_closed: 0 });
    const rebuilt = await runInDurableObject(stub, (_o: MetricsObject, state) => new TrafficStore(state.storage.sql).read(now));
    expect(rebuilt).toEqual(before);
  });

  it("keeps memory and storage bounded under a scan of 20,000 limited keys", async () => {
    const stub = freshObject();
    const log = new TrafficLog();
    for (let i = 0; i < 20_000; i++) log.record("api", "user", five, delta(0, 1), user(`scan-${i}`), T0 + (i % 50) * 1000);
    for (let i = 0; i < 2_000; i++) log.record("api", "user", five, delta(0, 1), user("attacker"), T0 + 1000);
    const batch = log.take();
    expect(batch.policies[0].minutes.every(([, s]) => s.entries.length <= SKETCH_COUNTERS)).toBe(true);
    await send(stub, batch);
    const view = await stub.trafficView(T0 + 60_000);
    const top = view.policies[0].top_now;
    expect(top.keys.length).toBe(TOP_KEYS);
    expect(top.keys[0].key).toBe("user=attacker");
    expect(top.total).toBe(22_000);
    expect(top.error).toBeLessThanOrEqual(22_000 / (SKETCH_COUNTERS + 1));
    expect(2_000 - top.keys[0].count).toBeLessThanOrEqual(top.error);
    const stored = await runInDurableObject(stub, (_o: MetricsObject, state) =>
      state.storage.sql.exec<{ data: string }>("SELECT data FROM traffic_sketches").toArray(),
    );
    expect(stored.length).toBe(2); // one "now" and one "hour" slice
    for (const row of stored) expect(JSON.parse(row.data).entries.length).toBeLessThanOrEqual(SKETCH_COUNTERS);
  });

  it("holds at most MAX_TRAFFIC_POLICIES policies, giving an hour-idle policy's place to a new one", async () => {
    const stub = freshObject();
    const flood = (from: number, count: number, at: number) => {
      const log = new TrafficLog();
      for (let i = from; i < from + count; i++) log.record("api", `rule-${i}`, five, delta(1, 0), user("x"), at);
      return log.take();
    };
    await send(stub, flood(0, MAX_TRAFFIC_POLICIES, T0));
    await send(stub, flood(MAX_TRAFFIC_POLICIES, 10, T0 + 1000));
    const view = await stub.trafficView(T0 + 2000);
    expect(view.policies.length).toBe(MAX_TRAFFIC_POLICIES);
    expect(view.dropped).toBe(10);
    // An hour and more later every old policy is idle: new ones take their places.
    const later = T0 + SERIES_BUCKETS * SERIES_BUCKET_MS + 20_000;
    await send(stub, flood(1000, 5, later));
    const after = await stub.trafficView(later);
    expect(after.policies.map((p) => p.descriptor).sort()).toEqual(["rule-1000", "rule-1001", "rule-1002", "rule-1003", "rule-1004"]);
    const rows = await runInDurableObject(stub, (_o: MetricsObject, state) => ({
      policies: state.storage.sql.exec("SELECT id FROM traffic_policies").toArray().length,
      buckets: state.storage.sql.exec("SELECT policy FROM traffic_buckets").toArray().length,
    }));
    expect(rows.policies).toBe(MAX_TRAFFIC_POLICIES);
    expect(rows.buckets).toBeLessThanOrEqual(MAX_TRAFFIC_POLICIES * SERIES_BUCKETS);
  });
});
