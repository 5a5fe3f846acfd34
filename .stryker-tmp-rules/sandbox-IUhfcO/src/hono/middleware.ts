/**
 * `rateLimit(options)`: the Hono middleware that puts floodgate in front of
 * the handlers after it (docs/hono.md). floodgate's own gateway decides
 * with the same engine (`admit`), its isolate made from `[vars]` instead.
 */
// @ts-nocheck

import type { MiddlewareHandler } from "hono";
import type { Env } from "../config.ts";
import { Isolate } from "../context/isolate.ts";
import { admit, admittedHeaders } from "../gateway/admit.ts";
import { deferOf } from "../http/defer.ts";
import { DECISION_HEADER, withHeaders } from "../http/headers.ts";
import { settleAfterResponse } from "../limiter/settle.ts";
import type { RateLimitResult } from "../limiter/types.ts";
import { type AnyContext, type RateLimitOptions, rulesSource, settingsFromOptions } from "./options.ts";

export { RulesError, type RateLimitOptions } from "./options.ts";
export { HEADER_DIALECTS, type HeaderDialect } from "../http/header-dialect.ts";
export { DECISION_HEADER };

/** Hono context variables the middleware sets. */
export interface RateLimitVariables {
  rateLimit: RateLimitResult;
}

declare module "hono" {
  interface ContextVariableMap {
    /** The rate limiter's decision for this request, set by `rateLimit()`. */
    rateLimit: RateLimitResult;
  }
}

const defaultCounters = (c: AnyContext) => c.env.COUNTERS;

/**
 * Build the middleware; options are checked and the rules compiled here,
 * once (an invalid option or rule throws at once, not on the first
 * request). Over the limit: 429 problem+json with `Retry-After`; admitted
 * at a reserved slot (`on_limit: "delay"`): the next handler runs once the
 * slot is reached. Otherwise the next handler runs at once; either way its
 * response gets the rate-limit headers, and `c.get("rateLimit")` holds the decision.
 *
 * @example
 * import rules from "./rules.json";
 * const app = new Hono<{ Bindings: { COUNTERS: DurableObjectNamespace } }>();
 * app.use("/api/*", rateLimit({ rules, counters: (c) => c.env.COUNTERS }));
 * app.get("/api/hello", (c) => c.json({ remaining: c.get("rateLimit").remaining }));
 */
export function rateLimit(options: RateLimitOptions): MiddlewareHandler {
  const rulesOf = rulesSource(options.rules);
  const settings = settingsFromOptions(options);
  const countersOf = options.counters ?? defaultCounters;
  const metricsOf = options.metrics;
  // One isolate per env object: the runtime passes the same one to every request of an isolate.
  const isolates = new WeakMap<object, Isolate<null>>();
  function isolateOf(c: AnyContext): Isolate<null> {
    let isolate = isolates.get(c.env);
    if (isolate === undefined) {
      const counters = countersOf(c);
      if (counters === undefined || typeof counters.getByName !== "function") {
        throw new TypeError("rateLimit(): options.counters(c) did not return a Durable Object namespace bound to CounterObject (default: c.env.COUNTERS)");
      }
      isolate = new Isolate({ env: c.env as Env, settings, counters, metrics: metricsOf?.(c) }, null);
      isolates.set(c.env, isolate);
    }
    return isolate;
  }
  return async function rateLimitMiddleware(c, next) {
    const isolate = isolateOf(c);
    const pending = rulesOf(c);
    const defer = deferOf(c);
    const admission = await admit(c.req.raw, isolate, pending instanceof Promise ? await pending : pending, defer);
    if (admission.response) return admission.response;
    const result = admission.result;
    c.set("rateLimit", result);
    // The slot is already taken in the counter; holding the request until it
    // comes is what keeps the origin at the limit's rate.
    if (result.delayMs !== undefined && result.delayMs > 0) await scheduler.wait(result.delayMs);
    const { slots } = admission;
    try {
      await next();
    } catch (error) {
      slots?.release();
      throw error;
    }
    const response = c.res;
    settleAfterResponse(isolate.edge, result, response, defer);
    const labelled = withHeaders(response, admittedHeaders(result, isolate.settings.headerDialect));
    // Concurrency slots (docs/concurrency.md) are held until the downstream body has been sent.
    if (slots !== undefined) c.res = slots.follow(labelled);
    // Assigning c.res makes Hono copy the response again: only when it had to be copied.
    else if (labelled !== response) c.res = labelled;
  };
}
