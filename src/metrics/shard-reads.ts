/**
 * Reading every metrics shard (shards.ts) and adding them up: the
 * Prometheus samples summed per series, the dashboard's rings merged.
 * One RPC per shard, all at once.
 */
import type { Env } from "../config.ts";
import { type Sample, sampleId } from "./samples.ts";
import { metricsShardNames } from "./shards.ts";
import { mergeTraffic, type TrafficState, type TrafficView } from "./traffic-view.ts";

/**
 * Every series of every shard, summed per series.
 *
 * @example
 * renderPrometheus(await samplesOfAllShards(env.METRICS));
 */
export async function samplesOfAllShards(metrics: Env["METRICS"]): Promise<Sample[]> {
  // The RPC type widens the label tuples to arrays; the objects return Samples.
  const shards = (await Promise.all(metricsShardNames().map((name) => metrics.getByName(name).read()))) as unknown as Sample[][];
  const sums = new Map<string, Sample>();
  for (const samples of shards) {
    for (const sample of samples) {
      const id = sampleId(sample);
      const held = sums.get(id);
      sums.set(id, held === undefined ? sample : { ...held, value: held.value + sample.value });
    }
  }
  return [...sums.values()];
}

/**
 * The dashboard's last hour at `now`, every shard's rings merged.
 *
 * @example
 * const view = await trafficOfAllShards(env.METRICS, Date.now());
 */
export async function trafficOfAllShards(metrics: Env["METRICS"], now: number): Promise<TrafficView> {
  const states = (await Promise.all(metricsShardNames().map((name) => metrics.getByName(name).trafficState(now)))) as unknown as TrafficState[];
  return mergeTraffic(states, now);
}
