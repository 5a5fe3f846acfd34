/**
 * floodgate's Worker entry, wiring only: one context per isolate (settings
 * from `env`, the live rules — bundled `rules.json` until rules are
 * uploaded —, the edge runtime, the metrics recorder), and over it the
 * gateway app, the consumer of queued requests, the Durable Object classes,
 * and FloodgateRpc, the service-binding entrypoint for other Workers.
 */
// @ts-nocheck

import { WorkerEntrypoint } from "cloudflare:workers";
import rulesJson from "../rules.json";
import type { Env } from "./config.ts";
import { isolateContexts } from "./context/isolate.ts";
import { callShouldRateLimit } from "./envoy/rpc.ts";
import type { EnvoyResponse } from "./envoy/response.ts";
import { createApp } from "./gateway/app.ts";
import { consumeQueue } from "./queue/consumer.ts";
import { bundledRules } from "./rules/bundled.ts";
import { LiveRules } from "./rules/live.ts";

export { CounterObject } from "./durable/counter-object.ts";
export { rateLimit } from "./hono/middleware.ts";
export { MetricsObject } from "./metrics/metrics-object.ts";
export { QueueStatusObject } from "./queue/status-object.ts";
export { RulesObject } from "./rules/rules-object.ts";

// HTTP, RPC and the queue consumer share one context per isolate, so all decide with the same rules and edge.
const isolateOf = isolateContexts(new LiveRules(bundledRules, { bundledJson: rulesJson }));

const app = createApp(isolateOf);

export default {
  fetch: app.fetch,
  // Delivers requests queued by `on_limit: "queue"` (the [[queues.consumers]] in wrangler.toml).
  queue: (batch, env) => consumeQueue(batch, env, isolateOf(env).settings),
} satisfies ExportedHandler<Env, unknown>;

/**
 * Envoy's ShouldRateLimit over a service binding: the same request and
 * response objects as `POST /__ratelimit/json`, without HTTP or a token.
 *
 * @example
 * // in the calling Worker, with [[services]] binding = "FLOODGATE", entrypoint = "FloodgateRpc":
 * const answer = await env.FLOODGATE.shouldRateLimit({ domain: "api", descriptors: [{ entries: [{ key: "user", value: id }] }] });
 * if (answer.overallCode === "OVER_LIMIT") return new Response("slow down", { status: 429 });
 */
export class FloodgateRpc extends WorkerEntrypoint<Env> {
  async shouldRateLimit(request: unknown): Promise<EnvoyResponse> {
    return callShouldRateLimit(isolateOf(this.env), request, (work) => this.ctx.waitUntil(work));
  }
}
