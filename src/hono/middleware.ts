/**
 * `rateLimit(options)`: the Hono middleware that puts floodgate in front of
 * the handlers after it.
 */
import type { Context, MiddlewareHandler } from "hono";
import type { Env } from "../config.ts";
import type { RateLimitResult } from "../limiter/types.ts";
import type { CompiledRules } from "../rules/types.ts";
import { isolateContexts } from "../context/isolate.ts";
import { admit, admittedHeaders } from "../gateway/admit.ts";
import { deferOf } from "../http/defer.ts";
import { DECISION_HEADER, withHeaders } from "../http/headers.ts";

/** Hono context variables the middleware sets. */
export interface RateLimitVariables {
  rateLimit: RateLimitResult;
}

export interface RateLimitOptions {
  /**
   * Compiled rules; a function is called per request (with the request's
   * context) so rules can be swapped atomically, and may return a promise
   * when it has to fetch them.
   */
  readonly rules: CompiledRules | ((c: Context<{ Bindings: Env; Variables: RateLimitVariables }>) => CompiledRules | Promise<CompiledRules>);
}

export { DECISION_HEADER };

/**
 * Build the middleware. Over the limit: 429 problem+json with Retry-After;
 * over only `on_limit: "queue"` limits: queued, 202 with its `Location`;
 * admitted at a reserved slot (`on_limit: "delay"`): the next handler runs
 * once the slot is reached. Otherwise the next handler runs at once; either
 * way its response gets the rate-limit headers.
 *
 * @example
 * const app = new Hono<{ Bindings: Env; Variables: RateLimitVariables }>();
 * app.use("*", rateLimit({ rules: compiled }));
 * app.all("*", (c) => c.text("hello"));
 */
export function rateLimit(options: RateLimitOptions): MiddlewareHandler<{ Bindings: Env; Variables: RateLimitVariables }> {
  const rules = options.rules;
  const rulesOf = typeof rules === "function" ? rules : () => rules;
  // This middleware's own isolate contexts: its settings, edge runtime and metrics, made from the app's env.
  const isolateOf = isolateContexts(rulesOf);
  return async function rateLimitMiddleware(c, next) {
    const isolate = isolateOf(c.env);
    const admission = await admit(c.req.raw, isolate, await isolate.rules(c), deferOf(c));
    if (admission.response) return admission.response;
    const result = admission.result;
    c.set("rateLimit", result);
    // The slot is already taken in the counter; holding the request until it
    // comes is what keeps the origin at the limit's rate.
    if (result.delayMs !== undefined && result.delayMs > 0) await scheduler.wait(result.delayMs);
    await next();
    const response = c.res;
    const labelled = withHeaders(response, admittedHeaders(result));
    // Assigning c.res makes Hono copy the response again: only when it had to be copied.
    if (labelled !== response) c.res = labelled;
  };
}
