/**
 * Result shapes of a whole-request decision. One shape (after Upstash
 * ratelimit) reaches the HTTP layer, which turns it into headers in one place.
 */
import type { Decision } from "../algorithms/types.ts";
import type { CompiledLimit, DescriptorEntry, DescriptorMatch } from "../rules/types.ts";

/** How one limit judged the request. */
export interface PolicyOutcome {
  readonly domain: string;
  readonly descriptor: readonly DescriptorEntry[];
  /** Policy name as shown in `RateLimit-Policy`. */
  readonly name: string;
  readonly windowMs: number;
  /** Shadow-mode limits (the node's `shadow_mode`) are counted but never block. */
  readonly shadow: boolean;
  readonly decision: Decision;
  /** The compiled limit, for the Envoy API (unit, requests_per_unit) and metrics. */
  readonly rule?: CompiledLimit;
}

/** How one request descriptor fared: what it matched and every limit's outcome. */
export interface DescriptorOutcome {
  readonly domain: string;
  readonly descriptor: readonly DescriptorEntry[];
  /** Hits this descriptor added (0 only reads its counters). */
  readonly cost: number;
  /** The matched tree node, or undefined when no rule applies. */
  readonly match?: DescriptorMatch;
  /** One per enforced limit (none when unmatched, whitelisted, unlimited or replaced). */
  readonly policies: readonly PolicyOutcome[];
}

/** Why the request was allowed or not. */
export type DecisionReason =
  | "allowed" // every applicable limit had room
  | "limited" // at least one enforcing limit was exceeded
  | "shadow" // a limit was exceeded but SHADOW_MODE let the request through
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
  /** Per request descriptor, in request order (absent when the request had none). */
  readonly descriptors?: readonly DescriptorOutcome[];
}
