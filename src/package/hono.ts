/**
 * `floodgate/hono`: the middleware for a Hono app of your own (docs/hono.md).
 *
 * @example
 * import { rateLimit } from "floodgate/hono";
 * app.use("/api/*", rateLimit({ rules, counters: (c) => c.env.COUNTERS }));
 * // or with hono-rate-limiter's options (docs/from-hono-rate-limiter.md):
 * import { rateLimiter } from "floodgate/hono";
 * app.use(rateLimiter({ windowMs: 15 * 60 * 1000, limit: 100, keyGenerator: (c) => c.req.header("x-api-key") ?? "" }));
 */
export {
  DECISION_HEADER,
  HEADER_DIALECTS,
  type HeaderDialect,
  type HonoRateLimiterOptions,
  type HonoRateLimiterSettings,
  RulesError,
  type RateLimitInfo,
  rateLimit,
  rateLimiter,
  type RateLimitOptions,
  type RateLimitStore,
  type RateLimitVariables,
} from "../hono/middleware.ts";
export type { PolicyOutcome, RateLimitResult } from "../limiter/types.ts";
