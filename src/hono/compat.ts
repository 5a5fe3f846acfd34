/**
 * `rateLimit()` with hono-rate-limiter's options and no rules document
 * (docs/from-hono-rate-limiter.md): each key a descriptor of a one-limit
 * fixed window (hono-rate-limiter's stores count in fixed windows), decided
 * through the admission pipeline the gateway uses; the skip options become `count_when`, so
 * a skipped response's hit is given back by the counter itself.
 */
import type { MiddlewareHandler } from "hono";
import { admitDescriptors, admittedHeaders, identifierRequest, reconcileWithResponse, refusal } from "../admission/index.ts";
import type { IsolateOptions } from "../context/isolate.ts";
import { deferOf } from "../http/defer.ts";
import { withHeaders } from "../http/headers.ts";
import { countedIdentifier, identifierDomain } from "../limiter/identifier.ts";
import type { CompiledDomain } from "../rules/types.ts";
import { checkLimit, compatSettings, type HonoRateLimiterOptions } from "./compat-options.ts";
import { middlewareIsolates } from "./isolates.ts";

/** Distinct limits a `limit` function may give whose compiled form is kept. */
const MAX_LIMITS = 64;

/**
 * The middleware for hono-rate-limiter's options; they are checked here,
 * once (an invalid or unsupported option throws at once).
 *
 * @example
 * app.use(rateLimit({ windowMs: 15 * 60 * 1000, limit: 100, keyGenerator: (c) => c.req.header("cf-connecting-ip") ?? "" }));
 */
export function honoRateLimiter(options: HonoRateLimiterOptions, isolateOptions: IsolateOptions = {}): MiddlewareHandler {
  const o = compatSettings(options);
  const isolateOf = middlewareIsolates(o.settings, options.counters, options.metrics, isolateOptions);
  const domains = new Map<number, CompiledDomain>();
  const domainOf = (limit: number): CompiledDomain => {
    let domain = domains.get(limit);
    if (domain === undefined) {
      domain = identifierDomain(o.prefix, { algorithm: "fixed_window", tokens: limit, windowMs: o.windowMs, countWhen: o.countWhen }, "rateLimit()");
      if (domains.size >= MAX_LIMITS) domains.delete(domains.keys().next().value as number);
      domains.set(limit, domain);
    }
    return domain;
  };
  // A fixed limit compiles now, so a limit the counters cannot hold throws when the middleware is made.
  if (typeof o.limit === "number") domainOf(o.limit);
  return async function honoRateLimiterMiddleware(c, next) {
    if (await o.skip(c)) return next();
    const key = await countedIdentifier(await o.keyGenerator(c), "rateLimit(): keyGenerator(c)");
    const limit = typeof o.limit === "function" ? checkLimit(await o.limit(c)) : o.limit;
    const isolate = isolateOf(c);
    const defer = deferOf(c);
    const options = { cost: 1, timeoutMs: isolate.settings.decisionTimeoutMs, defer, where: () => ({ path: c.req.path }) };
    const result = await admitDescriptors(isolate, identifierRequest(domainOf(limit), key), options, defer);
    if (result.reason === "failure_closed") return refusal(result);
    // hono-rate-limiter's fields beside floodgate's own decision, in every mode (failure-open included).
    c.set("rateLimit", { ...result, used: result.limit - result.remaining, resetTime: new Date(isolate.now() + result.resetAfterMs) });
    const headers = admittedHeaders(result, o.dialect);
    if (!result.allowed) {
      for (const [name, value] of headers) c.header(name, value);
      // hono-rate-limiter's handlers may answer through the context instead of returning a response.
      const answer = await o.handler(c, next, o);
      return answer instanceof Response ? answer : undefined;
    }
    try {
      await next();
    } catch (error) {
      // A handler that throws failed: its hit is given back under skipFailedRequests, kept under skipSuccessfulRequests.
      reconcileWithResponse(isolate.edge, result, { status: 500, headers: new Headers() }, defer);
      throw error;
    }
    reconcileWithResponse(isolate.edge, result, c.res, defer);
    const labelled = withHeaders(c.res, headers);
    if (labelled !== c.res) c.res = labelled;
  };
}
