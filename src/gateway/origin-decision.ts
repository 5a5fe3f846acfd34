/**
 * What the origin is told of a decision that forwarded a request past a
 * limit (docs/rules.md, "Gradual and soft enforcement"; docs/headers.md):
 * `X-RateLimit-Decision: not-enforced` (refused, but its `enforce_percent`
 * forwards this key), `soft` (past a `soft_percent` limit as written, within
 * its ceiling) or `shadow` (a shadow limit, or SHADOW_MODE, would have
 * refused it). The origin is the one that acts on these (warn the customer,
 * log); a client's own copy of the header never reaches it
 * (src/http/forward.ts, isDroppedHeader), so the origin can trust it.
 */
import type { RateLimitResult } from "../limiter/types.ts";

/** A value of `X-RateLimit-Decision` the origin receives. */
export type OriginDecision = "not-enforced" | "soft" | "shadow";

/**
 * The decision to tell the origin of `result`, or undefined for a plain allow.
 *
 * @example
 * originDecision(result); // "soft" for a request past a soft_percent limit, within its ceiling
 */
export function originDecision(result: RateLimitResult): OriginDecision | undefined {
  switch (result.reason) {
    case "not_enforced":
      return "not-enforced";
    case "soft":
      return "soft";
    case "shadow":
      return "shadow";
  }
  // A shadow_mode limit's would-be refusal leaves the reason as the enforced limits made it.
  for (const policy of result.policies) if (policy.shadow && !policy.decision.allowed) return "shadow";
  return undefined;
}
