/**
 * `GET /__ratelimit/traffic`: the dashboard's last hour, per policy: hits per
 * 10-second bucket and the keys most limited (docs/dashboard.md). This
 * isolate's pending counts are sent first; other isolates' are at most
 * METRICS_FLUSH_MS (plus one RPC) old.
 */
import type { Context } from "hono";
import type { Env } from "../config.ts";
import type { Isolate } from "../admission/isolate-context.ts";
import { trafficOfAllShards } from "../metrics/shard-reads.ts";
import type { TrafficView } from "../metrics/traffic-view.ts";
import { deferOf } from "../http/defer.ts";
import { candidateRows } from "./candidates.ts";

/**
 * Answer with the metrics shards' view of the last hour, added up.
 *
 * @example
 * admin.get("/traffic", (c) => getTraffic(c, isolateOf(c.env)));
 */
export async function getTraffic(c: Context<{ Bindings: Env }>, isolate: Isolate): Promise<Response> {
  const view = await trafficNow(isolate);
  // Candidate limits beside their live ones (docs/dashboard.md, "Candidate limits").
  const candidates = candidateRows(await isolate.currentRules(deferOf(c)), view);
  return Response.json({ ...view, candidates }, { headers: { "cache-control": "no-store" } });
}

/**
 * The last hour on this isolate's clock, with its pending counts included.
 *
 * @example
 * const view = await trafficNow(isolate);
 */
export async function trafficNow(isolate: Isolate): Promise<TrafficView> {
  await isolate.metrics.flushNow();
  return trafficOfAllShards(isolate.env.METRICS, isolate.now());
}
