/**
 * `GET /__ratelimit/metrics`: every isolate's counts, summed in the
 * MetricsObject, as Prometheus text. This isolate's own pending counts are
 * sent first; other isolates' are at most METRICS_FLUSH_MS (plus one RPC) old.
 */
// @ts-nocheck

import type { Context } from "hono";
import type { Env } from "../config.ts";
import type { Isolate } from "../context/isolate.ts";
import { METRICS_OBJECT } from "../metrics/recorder.ts";
import { PROMETHEUS_CONTENT_TYPE, renderPrometheus } from "../metrics/prometheus.ts";
import type { Sample } from "../metrics/samples.ts";

/**
 * Answer a scrape.
 *
 * @example
 * admin.get("/metrics", (c) => getMetrics(c, isolateOf(c.env)));
 */
export async function getMetrics(_c: Context<{ Bindings: Env }>, isolate: Isolate): Promise<Response> {
  await isolate.metrics.flushNow();
  // The RPC type widens the label tuples to arrays; the object returns Samples.
  const samples = (await isolate.env.METRICS.getByName(METRICS_OBJECT).read()) as unknown as Sample[];
  return new Response(renderPrometheus(samples), { headers: { "content-type": PROMETHEUS_CONTENT_TYPE, "cache-control": "no-store" } });
}
