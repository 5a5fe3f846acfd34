/**
 * Metrics sharded over METRICS_SHARDS objects (src/metrics/shards.ts): each
 * isolate sends to one shard, no shard takes much more than its share, and
 * the readers add the shards up to exactly what one object holding every
 * send would show. Real MetricsObjects in workerd.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/config.ts";
import { samplesOfAllShards, trafficOfAllShards } from "../../src/metrics/shard-reads.ts";
import { METRICS_SHARDS, metricsShardName, metricsShardNames, metricsShardOf } from "../../src/metrics/shards.ts";
import { TrafficLog } from "../../src/metrics/traffic.ts";
import { T0, delta, five } from "../support/traffic-records.ts";

const metrics = (env as unknown as Env).METRICS;

describe("metrics shards", () => {
  it("are named global, global/1, … and take a bounded share of isolates each", () => {
    expect(metricsShardNames()).toEqual(["global", "global/1", "global/2", "global/3", "global/4", "global/5", "global/6", "global/7"]);
    const counts = new Map<string, number>();
    for (let i = 0; i < 8_000; i++) {
      const shard = metricsShardOf(`isolate-${i}-${i * 7919}`);
      counts.set(shard, (counts.get(shard) ?? 0) + 1);
    }
    expect(counts.size).toBe(METRICS_SHARDS);
    // Each within 15 % of its even share (1,000).
    for (const n of counts.values()) expect(Math.abs(n - 1_000)).toBeLessThan(150);
  });

  // Break tried: samplesOfAllShards reading the first shard only: the sum was 3, not 10; mergeTraffic taking
  // each policy from the first shard that had it: the series and top keys differed from the one object's.
  it("add up, in the endpoints' readers, to what one object holding every send shows", async () => {
    const domain = `shards-${Date.now()}`;
    const reference = metrics.getByName(`shards-reference-${domain}`);
    const isolates = [1, 3, 6].map((shard) => ({ shard: metrics.getByName(metricsShardName(shard)), log: new TrafficLog() }));
    const name = "ratelimit_service_rate_limit_total_hits";
    const labels = [["domain", domain] as const];
    for (const [i, { shard }] of isolates.entries()) {
      const sample = { name, labels, value: [3, 4, 3][i] };
      await shard.add([sample]);
      await reference.add([sample]);
    }
    const sum = (await samplesOfAllShards(metrics)).find((s) => s.name === name && s.labels[0][1] === domain);
    expect(sum?.value).toBe(10);

    let at = T0;
    for (let step = 0; step < 30; step++) {
      at += 7_000;
      const { shard, log } = isolates[step % 3];
      log.record(domain, "user", five, delta(step % 4, step % 3), [{ key: "user", value: `u${step % 5}` }], at);
      const batch = log.take();
      await shard.add([], batch);
      await reference.add([], batch);
    }
    const merged = await trafficOfAllShards(metrics, at);
    const single = await reference.trafficView(at);
    const mine = (view: typeof merged) => view.policies.filter((p) => p.domain === domain);
    expect(mine(merged)).toEqual(mine(single));
    expect(mine(merged)[0].totals.limited).toBeGreaterThan(0);
  });
});
