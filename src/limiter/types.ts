/**
 * Result shapes of a whole-request decision. One shape (after Upstash
 * ratelimit) reaches the HTTP layer, which turns it into headers in one place.
 */
import type { Decision } from "../algorithms/types.ts";
import type { CounterCall } from "../stored/wire-calls.ts";
import type { CompiledLimit, DescriptorEntry, DescriptorMatch, ResponseCost } from "../rules/types.ts";

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
  /** The descriptor is in Envoy `quota_mode`: over it refuses only when every quota descriptor of the request is over. */
  readonly quota?: boolean;
  /** The limit's `on_limit` when the caller honours it (the gateway) and it is not `reject`. */
  readonly onLimit?: "delay" | "queue";
  /** For a request admitted at a reserved slot: how far away the slot was (ms). */
  readonly delayMs?: number;
  /** What the quota counts (draft-11's `qu`); absent means `requests`. */
  readonly quotaUnit?: QuotaUnit;
  /**
   * Gradual and soft enforcement (src/limiter/enforcement.ts): `soft`, allowed past the limit as written;
   * `not-enforced`, refused by the counter but forwarded. Absent: the decision stands.
   */
  readonly enforcement?: "soft" | "not-enforced";
}

/** The quota units of draft-ietf-httpapi-ratelimit-headers-11's registry. */
export type QuotaUnit = "requests" | "content-bytes" | "concurrent-requests" | "tokens";

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
  /** One per `candidate` of those limits: counted, never enforced (docs/rules.md, "Gradual and soft enforcement"). */
  readonly candidates?: readonly PolicyOutcome[];
  /** The object and call that decided it (absent when no limit applied); the queue paces with them. */
  readonly counter?: { readonly object: string; readonly call: CounterCall };
  /** The unit of `cost` when not requests (a route's `body_bytes` cost). */
  readonly quotaUnit?: QuotaUnit;
  /** What the origin reports it cost, charged once it answered (`cost_from_response`). */
  readonly costFromResponse?: ResponseCost;
  /** When the object took the hits of a refundable call (absent: not taken, or not refundable). */
  readonly chargedAt?: number;
}

/** Why the request was allowed or not. */
export type DecisionReason =
  | "allowed" // every applicable limit had room
  | "limited" // at least one enforcing limit was exceeded
  | "shadow" // a limit was exceeded but SHADOW_MODE let the request through
  | "not_enforced" // a limit refused it, but its enforce_percent forwards this key's refusals
  | "soft" // past a soft_percent limit as written, within its ceiling: forwarded tagged soft
  | "delayed" // over an `on_limit: "delay"` limit: admitted at a reserved slot, `delayMs` from now
  | "queued" // over only `on_limit: "queue"` limits: to be queued for later delivery
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
  /** With reason `delayed`: how long to wait before forwarding (the furthest reserved slot). */
  readonly delayMs?: number;
  /** The most restrictive policy, when any limit applied. */
  readonly policy?: PolicyOutcome;
  /** Every limit that applied, shadow ones included. */
  readonly policies: readonly PolicyOutcome[];
  /** Per request descriptor, in request order (absent when the request had none). */
  readonly descriptors?: readonly DescriptorOutcome[];
  /** FAILURE_MODE=local decided it in the isolate, its counters out of reach (`X-RateLimit-Decision: local`). */
  readonly decidedLocally?: true;
}
