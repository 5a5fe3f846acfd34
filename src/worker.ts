/**
 * floodgate's Worker entry, wiring only: one context per isolate (settings
 * from `env`, the live rules — bundled `rules.json` until rules are
 * uploaded —, the edge runtime, the metrics recorder), and over it the
 * gateway app, the consumer of queued requests, the Durable Object classes,
 * and the service-binding entrypoints for other Workers: FloodgateRpc, and
 * RateLimiterBinding, which answers as Cloudflare's rate limiting binding.
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import rulesJson from "../rules.json";
import type { Env } from "./config.ts";
import { type IsolateOf, isolateContexts } from "./admission/isolate-context.ts";
import { callShouldRateLimit } from "./envoy/rpc.ts";
import type { EnvoyResponse } from "./envoy/response.ts";
import { createApp } from "./gateway/app.ts";
import { consumeQueue } from "./queue/consumer.ts";
import { type BindingOutcome, BindingLimits, bindingLimit } from "./dropins/binding.ts";
import { bundledRules } from "./rules/bundled.ts";
import { OverridesOverlay } from "./overrides/overlay.ts";
import { LiveRules } from "./isolate/live-rules.ts";

export { CounterObject } from "./durable/counters/counter-object.ts";
export { rateLimit } from "./hono/middleware.ts";
export { MetricsObject } from "./durable/metrics/metrics-object.ts";
export { QueueStatusObject } from "./durable/queue/status-object.ts";
// The RulesObject keeps the overrides beside the rules (src/overrides/).
export { RulesObject } from "./durable/rules/rules-object.ts";

// HTTP, RPC and the queue consumer share one context per isolate, so all decide with the same rules and edge.
const isolateOf = isolateContexts(new LiveRules(bundledRules, { bundledJson: rulesJson, overlay: new OverridesOverlay() }));

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
  /**
   * The isolate contexts it decides in: the worker's own. A test's subclass
   * gives contexts on a driven clock; a field, so no caller reaches it over RPC.
   */
  protected readonly isolates: IsolateOf = isolateOf;

  async shouldRateLimit(request: unknown): Promise<EnvoyResponse> {
    return callShouldRateLimit(this.isolates(this.env), request, (work) => this.ctx.waitUntil(work));
  }
}

// Each binding's limit, compiled from its props once per isolate.
const bindingLimits = new BindingLimits();

/**
 * Cloudflare's rate limiting binding, over a service binding
 * (docs/from-cloudflare-binding.md): the limit and period come from the
 * binding's props, any period, counted exactly across locations.
 *
 * @example
 * // the calling Worker's wrangler.toml:
 * // [[services]]
 * // binding = "MY_RATE_LIMITER"
 * // service = "floodgate"
 * // entrypoint = "RateLimiterBinding"
 * // props = { namespace_id = "1001", simple = { limit = 100, period = 60 } }
 * const { success } = await env.MY_RATE_LIMITER.limit({ key: pathname });
 * if (!success) return new Response("429 Failure – rate limit exceeded", { status: 429 });
 */
export class RateLimiterBinding extends WorkerEntrypoint<Env, unknown> {
  async limit(options: unknown): Promise<BindingOutcome> {
    const domain = bindingLimits.domainOf(this.ctx.props);
    return bindingLimit(isolateOf(this.env), domain, options, (work) => this.ctx.waitUntil(work));
  }
}
