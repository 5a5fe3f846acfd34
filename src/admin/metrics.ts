/**
 * `GET /__ratelimit/metrics`: every isolate's counts, summed in the
 * metrics shards and added up across them, as Prometheus text. This isolate's own pending counts are
 * sent first; other isolates' are at most METRICS_FLUSH_MS (plus one RPC) old.
 */
import type { Context } from "hono";
import type { Env } from "../config.ts";
import type { Isolate } from "../admission/isolate-context.ts";
import { PROMETHEUS_CONTENT_TYPE, renderPrometheus } from "../metrics/prometheus.ts";
import { samplesOfAllShards } from "../metrics/shard-reads.ts";

/**
 * Answer a scrape.
 *
 * @example
 * admin.get("/metrics", (c) => getMetrics(c, isolateOf(c.env)));
 */
export async function getMetrics(_c: Context<{ Bindings: Env }>, isolate: Isolate): Promise<Response> {
  await isolate.metrics.flushNow();
  const samples = await samplesOfAllShards(isolate.env.METRICS);
  return new Response(renderPrometheus(samples), { headers: { "content-type": PROMETHEUS_CONTENT_TYPE, "cache-control": "no-store" } });
}
