/**
 * `rateLimit(options)`: the Hono middleware that puts floodgate in front of
 * the handlers after it (docs/hono.md). floodgate's own gateway decides
 * with the same engine (`admit`), its isolate made from `[vars]` instead.
 */
import type { Env as HonoEnv, Input, MiddlewareHandler } from "hono";
import type { IsolateOptions } from "../admission/isolate-context.ts";
import { admit } from "../gateway/admit.ts";
import { originDecision, toldRequest } from "../gateway/origin-decision.ts";
import { deferOf } from "../http/defer.ts";
import { DECISION_HEADER } from "../http/headers.ts";
import { honoRateLimiter } from "./compat.ts";
import type { HonoRateLimiterOptions, RateLimitInfo } from "./compat-options.ts";
import { middlewareIsolates } from "./isolates.ts";
import { checkRulesOptions, type RateLimitOptions, rulesSource, settingsFromOptions } from "./options.ts";

export { RulesError, type RateLimitOptions } from "./options.ts";
export type { HonoRateLimiterOptions, HonoRateLimiterSettings, RateLimitInfo, RateLimitStore } from "./compat-options.ts";

// biome-ignore lint/complexity/noBannedTypes: Hono's default Input.
type NoInput = {};
export { HEADER_DIALECTS, type HeaderDialect } from "../http/header-dialect.ts";
export { DECISION_HEADER };

/** Hono context variables the middleware sets. */
export interface RateLimitVariables {
  rateLimit: RateLimitInfo;
}

declare module "hono" {
  interface ContextVariableMap {
    /** The rate limiter's decision for this request, set by `rateLimit()`. */
    rateLimit: RateLimitInfo;
  }
}

/**
 * Build the middleware; options are checked and the rules compiled here,
 * once (an invalid option or rule throws at once, not on the first
 * request). Over the limit: 429 problem+json with `Retry-After`; admitted
 * at a reserved slot (`on_limit: "delay"`): the next handler runs once the
 * slot is reached. Otherwise the next handler runs at once; either way its
 * response gets the rate-limit headers, and `c.get("rateLimit")` holds the decision.
 * Without `rules`, it takes hono-rate-limiter's options instead
 * (docs/from-hono-rate-limiter.md).
 *
 * @example
 * import rules from "./rules.json";
 * const app = new Hono<{ Bindings: { COUNTERS: DurableObjectNamespace } }>();
 * app.use("/api/*", rateLimit({ rules, counters: (c) => c.env.COUNTERS }));
 * app.get("/api/hello", (c) => c.json({ remaining: c.get("rateLimit").remaining }));
 * // or, as hono-rate-limiter:
 * app.use(rateLimit({ windowMs: 15 * 60 * 1000, limit: 100, keyGenerator: (c) => c.req.header("cf-connecting-ip") ?? "" }));
 */
// biome-ignore lint/suspicious/noExplicitAny: any app's env by default, as Hono's own MiddlewareHandler.
export function rateLimit<E extends HonoEnv = any, P extends string = string, I extends Input = NoInput>(options: RateLimitOptions): MiddlewareHandler<E, P, I>;
// biome-ignore lint/suspicious/noExplicitAny: any app's env by default, as Hono's own MiddlewareHandler.
export function rateLimit<E extends HonoEnv = any, P extends string = string, I extends Input = NoInput>(
  options: HonoRateLimiterOptions<E, P, I>,
): MiddlewareHandler<E, P, I>;
export function rateLimit(options: RateLimitOptions | HonoRateLimiterOptions): MiddlewareHandler {
  return rateLimitOn(options, {});
}

/**
 * `rateLimit(options)` with its isolate built with `isolateOptions` (the
 * clock): for tests that drive time; not exported by `floodgate/hono`.
 *
 * @example
 * app.use(rateLimitOn({ rules }, { now: () => clock.at }));
 */
export function rateLimitOn(options: RateLimitOptions | HonoRateLimiterOptions, isolateOptions: IsolateOptions): MiddlewareHandler {
  if (typeof options !== "object" || options === null) throw new TypeError("rateLimit(): expected an options object");
  if (!Object.hasOwn(options, "rules")) return honoRateLimiter(options as HonoRateLimiterOptions, isolateOptions);
  checkRulesOptions(options);
  const rulesOptions = options as RateLimitOptions;
  const rulesOf = rulesSource(rulesOptions.rules);
  const isolateOf = middlewareIsolates(settingsFromOptions(rulesOptions), rulesOptions.counters, rulesOptions.metrics, isolateOptions);
  return async function rateLimitMiddleware(c, next) {
    const isolate = isolateOf(c);
    const pending = rulesOf(c);
    const defer = deferOf(c);
    const admission = await admit(c.req.raw, isolate, pending instanceof Promise ? await pending : pending, defer);
    if (admission.response) return admission.response;
    // The body was read to key on it (docs/llm.md): the handlers read the same bytes from its copy.
    if (admission.forwarded !== undefined) c.req.raw = admission.forwarded;
    // Set in every mode, failure-open included (reason "failure_open"), so handlers can always read it.
    c.set("rateLimit", admission.result);
    // The handlers are the origin: told of a request let past a limit, never by the client (docs/hono.md).
    c.req.raw = toldRequest(c.req.raw, originDecision(admission.result));
    const wait = admission.untilSlot();
    if (wait !== undefined) await wait;
    try {
      await next();
    } catch (error) {
      admission.abandon();
      throw error;
    }
    const response = c.res;
    const labelled = admission.finish(response, admission.headers());
    // Assigning c.res makes Hono copy the response again: only when it had to be copied (or its body is followed for slots).
    if (labelled !== response) c.res = labelled;
  };
}

/**
 * `rateLimit` under hono-rate-limiter's name, so moving from it changes only
 * the import (docs/from-hono-rate-limiter.md).
 *
 * @example
 * import { rateLimiter } from "floodgate/hono";
 * app.use(rateLimiter({ windowMs: 60_000, limit: 5, keyGenerator: (c) => c.req.header("x-api-key") ?? "" }));
 */
export const rateLimiter = rateLimit;
