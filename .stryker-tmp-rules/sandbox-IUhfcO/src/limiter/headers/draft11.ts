/**
 * `RateLimit-Policy` and `RateLimit` as draft-ietf-httpapi-ratelimit-headers-11
 * defines them (docs/headers.md): structured-field lists with one item per
 * policy, named by an sf-string, most restrictive first.
 *
 *   RateLimit-Policy: "per-ip-1s";q=10;w=1, "per-ip-1m";q=100;w=60
 *   RateLimit: "per-ip-1s";r=0;t=1, "per-ip-1m";r=42;t=17
 *
 * `q` is the quota per window and `w` the window in seconds. `r` is the
 * available quota: how many more hits the policy would let through now.
 * `t` is -11's effective window, not a reset time: the seconds within which
 * the client can use no more than `r`, that is how long after spending all
 * of `r` at once the next hit would fit (`Decision.effectiveWindowMs`).
 * Seconds are rounded up, so a client pacing `r` over `t` stays within the
 * limit. A limit of 0 never frees anything; its `t` is its window.
 */
// @ts-nocheck

import type { PolicyOutcome } from "../types.ts";
import { quotedName, seconds } from "./text.ts";

/**
 * The policy's `t` in whole seconds.
 *
 * @example
 * effectiveWindowSeconds(policy); // 17
 */
export function effectiveWindowSeconds(policy: PolicyOutcome): number {
  const ms = policy.decision.effectiveWindowMs;
  return seconds(Number.isFinite(ms) ? ms : policy.windowMs);
}

/**
 * The `RateLimit-Policy` item of one policy; `qu` only when the unit is not
 * the default `requests`.
 *
 * @example
 * policyItem(policy); // "\"per-ip\";q=100;w=60"
 */
export function policyItem(policy: PolicyOutcome): string {
  const unit = policy.quotaUnit !== undefined && policy.quotaUnit !== "requests" ? `;qu="${policy.quotaUnit}"` : "";
  // Requests in flight have no window (docs/concurrency.md): `w` is left out, as the draft allows.
  const window = policy.quotaUnit === "concurrent-requests" ? "" : `;w=${seconds(policy.windowMs)}`;
  return `${quotedName(policy.name)};q=${policy.decision.limit}${unit}${window}`;
}

/**
 * The `RateLimit` item of one policy.
 *
 * @example
 * serviceLimitItem(policy); // "\"per-ip\";r=42;t=17"
 */
export function serviceLimitItem(policy: PolicyOutcome): string {
  return `${quotedName(policy.name)};r=${policy.decision.remaining};t=${effectiveWindowSeconds(policy)}`;
}

/**
 * Append the two draft-11 fields for `policies` (most restrictive first) to `headers`.
 *
 * @example
 * draft11Fields(listedPolicies(result), headers);
 */
export function draft11Fields(policies: readonly PolicyOutcome[], headers: [string, string][]): void {
  if (policies.length === 1) {
    headers.push(["RateLimit-Policy", policyItem(policies[0])], ["RateLimit", serviceLimitItem(policies[0])]);
    return;
  }
  let policy = "";
  let limit = "";
  for (const p of policies) {
    policy += `${policy === "" ? "" : ", "}${policyItem(p)}`;
    limit += `${limit === "" ? "" : ", "}${serviceLimitItem(p)}`;
  }
  headers.push(["RateLimit-Policy", policy], ["RateLimit", limit]);
}
