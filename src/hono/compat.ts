/**
 * `rateLimit()` with hono-rate-limiter's options and no rules document
 * (docs/from-hono-rate-limiter.md): each key a descriptor of a one-limit
 * fixed window (hono-rate-limiter's stores count in fixed windows), decided
 * through the admission pipeline the gateway uses; the skip options become `count_when`, so
 * a skipped response's hit is given back by the counter itself.
 */
import type { Context, MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import { admitDescriptors, admittedHeaders, identifierRequest, reconcileWithResponse, refusal } from "../admission/index.ts";
import type { Isolate, IsolateOptions } from "../admission/isolate-context.ts";
import { deferOf } from "../http/defer.ts";
import { withHeaders } from "../http/headers.ts";
import { countedIdentifier, decideIdentifier, identifierCounter, identifierDomain } from "../limiter/identifier.ts";
import type { CompiledDomain } from "../rules/types.ts";
import { checkLimit, compatSettings, type HonoRateLimiterOptions, type RateLimitStore } from "./compat-options.ts";
import { countersOf, middlewareIsolates } from "./isolates.ts";

/** Distinct (mount, limit) pairs whose compiled form is kept (a `limit` function may give many limits). */
const MAX_DOMAINS = 256;
/** The domain counts fall under when no prefix is given, before the mount that keeps each middleware's apart. */
const DEFAULT_PREFIX = "hono-rate-limiter";

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
  const domains = new Map<string, CompiledDomain>();
  const domainOf = (scope: string, limit: number): CompiledDomain => {
    const id = `${limit}\n${scope}`;
    let domain = domains.get(id);
    if (domain === undefined) {
      domain = identifierDomain(scope, { algorithm: "fixed_window", tokens: limit, windowMs: o.windowMs, countWhen: o.countWhen }, "rateLimit()");
      if (domains.size >= MAX_DOMAINS) domains.delete(domains.keys().next().value as string);
      domains.set(id, domain);
    }
    return domain;
  };
  // A fixed limit compiles now, so a limit the counters cannot hold throws when the middleware is made.
  if (typeof o.limit === "number") domainOf(o.prefix ?? DEFAULT_PREFIX, o.limit);
  return async function honoRateLimiterMiddleware(c, next) {
    // Before skip, so that the limiters after this one on its path keep their places whatever this one skips.
    const scope = o.prefix ?? mountScope(c);
    if (await o.skip(c)) return next();
    const key = await countedIdentifier(await o.keyGenerator(c), "rateLimit(): keyGenerator(c)");
    const limit = typeof o.limit === "function" ? checkLimit(await o.limit(c)) : o.limit;
    const domain = domainOf(scope, limit);
    const isolate = isolateOf(c);
    const defer = deferOf(c);
    c.set(o.requestStorePropertyName, counterStore(isolate, domain));
    const options = { cost: 1, timeoutMs: isolate.settings.decisionTimeoutMs, defer, where: () => ({ path: c.req.path }) };
    const result = await admitDescriptors(isolate, identifierRequest(domain, key), options, defer);
    if (result.reason === "failure_closed") return refusal(result);
    // hono-rate-limiter's fields beside floodgate's own decision, in every mode (failure-open included).
    c.set(o.requestPropertyName, { ...result, used: result.limit - result.remaining, resetTime: new Date(isolate.now() + result.resetAfterMs) });
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

// Per request: how many of these middlewares have run at each mount path so far.
const placesRun = new WeakMap<Context, Map<string, number>>();

/**
 * This middleware's own counter domain when no prefix is given: the path it
 * is mounted on (the app's registered pattern, never the request's own
 * path) and its place among the limiters mounted there, the same on every
 * request and in every isolate.
 */
function mountScope(c: Context): string {
  const path = routePath(c);
  let places = placesRun.get(c);
  if (places === undefined) placesRun.set(c, (places = new Map()));
  const place = places.get(path) ?? 0;
  places.set(path, place + 1);
  return place === 0 ? `${DEFAULT_PREFIX} ${path}` : `${DEFAULT_PREFIX} ${path} #${place + 1}`;
}

/** hono-rate-limiter's store interface over this middleware's counters, as `c.get("rateLimitStore")` gives it. */
function counterStore(isolate: Isolate<null>, domain: CompiledDomain): RateLimitStore {
  return {
    getKey: async (key) => {
      const id = await countedIdentifier(key, "rateLimitStore.getKey(key)");
      const read = await decideIdentifier(isolate.edge, domain, id, { cost: 0, timeoutMs: isolate.settings.decisionTimeoutMs, defer: () => undefined });
      const totalHits = read.limit - read.remaining;
      return totalHits === 0 ? undefined : { totalHits, resetTime: new Date(isolate.now() + read.resetAfterMs) };
    },
    resetKey: async (key) => {
      const id = await countedIdentifier(key, "rateLimitStore.resetKey(key)");
      const { key: counter, object } = identifierCounter(domain, id, isolate.edge.shardKey);
      await countersOf(isolate).getByName(object).reset(counter);
      isolate.edge.blocks.forget(counter);
    },
  };
}
