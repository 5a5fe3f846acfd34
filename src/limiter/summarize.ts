/**
 * Folds the outcomes of every applicable limit into one RateLimitResult.
 */
import { moreRestrictive } from "./restrictive.ts";
import type { PolicyOutcome, RateLimitResult } from "./types.ts";

/**
 * Pick the policy that speaks for the request. A request is over the limit
 * if any enforcing (non-shadow) limit rejected it; then the rejecting limit
 * with the longest wait is reported, so `Retry-After` is never earlier than
 * the first moment every limit allows again. When every rejecting limit has
 * `on_limit: "queue"` the request is `queued` instead of refused. Otherwise
 * the policy with the least remaining is reported, and a request that took
 * reserved slots (`on_limit: "delay"`) is `delayed` until the furthest one.
 * Limits of `quota_mode` descriptors (Envoy's) refuse only when every quota
 * descriptor of the request is over one of its limits.
 * With `shadowAll` (SHADOW_MODE) a request that would be rejected is let
 * through with reason `shadow`, its headers still telling the truth.
 * A refusal `enforce_percent` does not enforce for the key lets the request
 * through with reason `not_enforced` (the refusing limit reported, nothing
 * remaining); one allowed past a `soft_percent` limit as written is `soft`
 * (docs/rules.md, "Gradual and soft enforcement").
 *
 * @example
 * const result = summarize(outcomes);
 * if (!result.allowed) console.log(result.retryAfterMs);
 */
export function summarize(policies: readonly PolicyOutcome[], shadowAll = false): RateLimitResult {
  let blocking: PolicyOutcome | undefined;
  let waived: PolicyOutcome | undefined;
  let softened: PolicyOutcome | undefined;
  let tightest: PolicyOutcome | undefined;
  let queueOnly = true;
  let delayMs = 0;
  const quotaRefuses = quotaAllOver(policies);
  for (const policy of policies) {
    const d = policy.decision;
    if (!d.allowed && !policy.shadow && (policy.quota !== true || quotaRefuses)) {
      // A refusal its enforce_percent does not enforce forwards the request (docs/rules.md, "Gradual and soft enforcement").
      if (policy.enforcement === "not-enforced") {
        if (!waived || moreRestrictive(d, waived.decision)) waived = policy;
        continue;
      }
      if (policy.onLimit !== "queue") queueOnly = false;
      if (!blocking || moreRestrictive(d, blocking.decision)) blocking = policy;
    }
    if (policy.shadow) continue;
    if (policy.enforcement === "soft") softened ??= policy;
    delayMs = Math.max(delayMs, policy.delayMs ?? 0);
    if (!tightest || moreRestrictive(d, tightest.decision)) tightest = policy;
  }
  const policy = blocking ?? waived ?? tightest;
  if (!policy) {
    return { allowed: true, reason: "no_limit", limit: 0, remaining: 0, resetAfterMs: 0, retryAfterMs: 0, policies };
  }
  const d = policy.decision;
  if (blocking && shadowAll) {
    return { allowed: true, reason: "shadow", limit: d.limit, remaining: 0, resetAfterMs: d.resetAfterMs, retryAfterMs: 0, policy, policies };
  }
  const common = { limit: d.limit, resetAfterMs: d.resetAfterMs, policy, policies };
  if (blocking) return { ...common, allowed: false, reason: queueOnly ? "queued" : "limited", remaining: 0, retryAfterMs: d.retryAfterMs };
  if (delayMs > 0) return { ...common, allowed: true, reason: "delayed", remaining: d.remaining, retryAfterMs: 0, delayMs };
  if (waived) return { ...common, allowed: true, reason: "not_enforced", remaining: 0, retryAfterMs: 0 };
  if (softened)
    return {
      ...common,
      limit: softened.decision.limit,
      resetAfterMs: softened.decision.resetAfterMs,
      policy: softened,
      allowed: true,
      reason: "soft",
      remaining: 0,
      retryAfterMs: 0,
    };
  return { ...common, allowed: true, reason: "allowed", remaining: d.remaining, retryAfterMs: 0 };
}

/**
 * Envoy `quota_mode` (docs/rules.md): whether every quota descriptor among
 * `policies` is over (a shadow one never is); false when there are none.
 *
 * @example
 * quotaAllOver([quotaOverA, quotaOkB]); // false: B still has quota
 */
export function quotaAllOver(policies: readonly PolicyOutcome[]): boolean {
  let over: Map<readonly unknown[], boolean> | undefined;
  for (const policy of policies) {
    if (policy.quota !== true) continue;
    over ??= new Map();
    const rejected = !policy.decision.allowed && !policy.shadow;
    over.set(policy.descriptor, (over.get(policy.descriptor) ?? false) || rejected);
  }
  if (over === undefined) return false;
  for (const rejected of over.values()) if (!rejected) return false;
  return true;
}
