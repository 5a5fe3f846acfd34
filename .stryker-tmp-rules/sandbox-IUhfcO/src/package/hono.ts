/**
 * `floodgate/hono`: the middleware for a Hono app of your own (docs/hono.md).
 *
 * @example
 * import { rateLimit } from "floodgate/hono";
 * app.use("/api/*", rateLimit({ rules, counters: (c) => c.env.COUNTERS }));
 */
// @ts-nocheck

export {
  DECISION_HEADER,
  HEADER_DIALECTS,
  type HeaderDialect,
  RulesError,
  rateLimit,
  type RateLimitOptions,
  type RateLimitVariables,
} from "../hono/middleware.ts";
export type { PolicyOutcome, RateLimitResult } from "../limiter/types.ts";
