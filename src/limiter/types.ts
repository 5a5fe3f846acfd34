/**
 * Result shapes of a whole-request decision. One shape (after Upstash
 * ratelimit) reaches the HTTP layer, which turns it into headers in one place.
 */
import type { Decision } from "../algorithms/types.ts";
import type { DescriptorEntry } from "../rules/types.ts";

/** How one limit judged the request. */
export interface PolicyOutcome {
  readonly domain: string;
  readonly descriptor: readonly DescriptorEntry[];
  /** Policy name as shown in `RateLimit-Policy`. */
  readonly name: string;
  readonly windowMs: number;
  /** Shadow-mode limits are counted but never block. */
  readonly shadow: boolean;
  readonly decision: Decision;
}

/** Why the request was allowed or not. */
export type DecisionReason =
  | "allowed" // every applicable limit had room
  | "limited" // at least one enforcing limit was exceeded
  | "no_limit" // no limit applied (no route, whitelisted or unlimited)
  | "failure_open" // a counter could not be reached; FAILURE_MODE=open let it through
  | "failure_closed"; // a counter could not be reached; FAILURE_MODE=closed refused it

/**
 * The decision for a whole request. `limit`/`remaining`/`resetAfterMs`/
 * `retryAfterMs` describe the most restrictive applicable policy: the
 * blocking one with the longest wait when rejected, else the one with the
 * least remaining.
 */
export interface RateLimitResult {
  readonly allowed: boolean;
  readonly reason: DecisionReason;
  readonly limit: number;
  readonly remaining: number;
  readonly resetAfterMs: number;
  readonly retryAfterMs: number;
  /** The most restrictive policy, when any limit applied. */
  readonly policy?: PolicyOutcome;
  /** Every limit that applied, shadow ones included. */
  readonly policies: readonly PolicyOutcome[];
}
