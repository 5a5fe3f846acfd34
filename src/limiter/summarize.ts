/**
 * Folds the outcomes of every applicable limit into one RateLimitResult.
 */
import type { PolicyOutcome, RateLimitResult } from "./types.ts";

/**
 * Pick the policy that speaks for the request. A request is over the limit
 * if any enforcing (non-shadow) limit rejected it; then the rejecting limit
 * with the longest wait is reported, so `Retry-After` is never earlier than
 * the first moment every limit allows again. Otherwise the policy with the
 * least remaining is reported. With `shadowAll` (SHADOW_MODE) a request that
 * would be rejected is let through with reason `shadow`, its headers still
 * telling the truth about the quota.
 *
 * @example
 * const result = summarize(outcomes);
 * if (!result.allowed) console.log(result.retryAfterMs);
 */
export function summarize(policies: readonly PolicyOutcome[], shadowAll = false): RateLimitResult {
  let blocking: PolicyOutcome | undefined;
  let tightest: PolicyOutcome | undefined;
  for (const policy of policies) {
    const d = policy.decision;
    if (!d.allowed && !policy.shadow && (!blocking || d.retryAfterMs > blocking.decision.retryAfterMs)) blocking = policy;
    if (policy.shadow) continue;
    if (!tightest || d.remaining < tightest.decision.remaining ||
        (d.remaining === tightest.decision.remaining && d.resetAfterMs > tightest.decision.resetAfterMs)) {
      tightest = policy;
    }
  }
  const policy = blocking ?? tightest;
  if (!policy) {
    return { allowed: true, reason: "no_limit", limit: 0, remaining: 0, resetAfterMs: 0, retryAfterMs: 0, policies };
  }
  const d = policy.decision;
  if (blocking && shadowAll) {
    return { allowed: true, reason: "shadow", limit: d.limit, remaining: 0, resetAfterMs: d.resetAfterMs, retryAfterMs: 0, policy, policies };
  }
  return {
    allowed: !blocking,
    reason: blocking ? "limited" : "allowed",
    limit: d.limit,
    remaining: blocking ? 0 : d.remaining,
    resetAfterMs: d.resetAfterMs,
    retryAfterMs: blocking ? d.retryAfterMs : 0,
    policy,
    policies,
  };
}
