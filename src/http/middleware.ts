/**
 * `rateLimit(options)`: the Hono middleware that puts floodgate in front of
 * the handlers after it.
 */
import type { Context, MiddlewareHandler } from "hono";
import { settingsOf, type Env } from "../env.ts";
import { CounterUnavailableError, decide } from "../limiter/decide.ts";
import type { RateLimitResult } from "../limiter/types.ts";
import { requestDescriptors } from "../mapping/descriptors.ts";
import { InvalidClientIpError } from "../mapping/client-ip.ts";
import { recordFailureMode, recordGlobalShadow, recordOutcomes, scheduleFlush } from "../metrics/recorder.ts";
import { enqueueRequest } from "../queue/enqueue.ts";
import type { CompiledRules } from "../rules/types.ts";
import { deferOf } from "./defer.ts";
import { DECISION_HEADER, withRateLimitHeaders } from "./headers.ts";
import { problem, tooManyRequests } from "./problem.ts";

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
  const rulesOf = typeof options.rules === "function" ? options.rules : () => options.rules as CompiledRules;
  return async function rateLimitMiddleware(c, next) {
    const settings = settingsOf(c.env);
    let result: RateLimitResult;
    try {
      const pending = rulesOf(c);
      const rules = pending instanceof Promise ? await pending : pending;
      const descriptors = requestDescriptors(rules, c.req.raw, { trustedProxyHops: settings.trustedProxyHops });
      result = await decide(c.env, descriptors, {
        timeoutMs: settings.decisionTimeoutMs, shadowAll: settings.shadowMode, defer: deferOf(c), onLimit: true,
      });
    } catch (error) {
      if (error instanceof InvalidClientIpError) return problem(400, "Bad Request", error.message);
      if (!(error instanceof CounterUnavailableError)) throw error;
      console.error(JSON.stringify({ event: "ratelimit.counter_unavailable", failure_mode: settings.failureMode, path: new URL(c.req.url).pathname, error: error.message }));
      recordFailureMode(settings.failureMode);
      scheduleFlush(c.env, settings.metricsFlushMs, deferOf(c));
      if (settings.failureMode === "closed") {
        return problem(503, "Service Unavailable", "The rate limiter could not reach its counters; try again shortly.", { retry_after: 1 }, { "Retry-After": "1", [DECISION_HEADER]: "failure-closed" });
      }
      result = { allowed: true, reason: "failure_open", limit: 0, remaining: 0, resetAfterMs: 0, retryAfterMs: 0, policies: [] };
    }
    if (result.descriptors !== undefined) {
      recordOutcomes(result.descriptors);
      if (result.reason === "shadow") recordGlobalShadow();
      scheduleFlush(c.env, settings.metricsFlushMs, deferOf(c));
    }
    if (result.reason === "queued") return enqueueRequest(c.env, c.req.raw, result);
    if (!result.allowed) return tooManyRequests(result);
    c.set("rateLimit", result);
    // The slot is already taken in the counter; holding the request until it
    // comes is what keeps the origin at the limit's rate.
    if (result.delayMs !== undefined && result.delayMs > 0) await scheduler.wait(result.delayMs);
    await next();
    c.res = withRateLimitHeaders(c.res, result);
    if (result.reason === "failure_open") c.res.headers.set(DECISION_HEADER, "failure-open");
  };
}
