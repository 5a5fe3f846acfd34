/**
 * Envoy's RateLimitResponse in proto3 JSON, as envoyproxy/ratelimit's `/json`
 * endpoint writes it with protojson: lowerCamelCase names, enums by name,
 * fields in declaration order, and every field at its default value left
 * out (so `limitRemaining: 0` and `requestsPerUnit: 0` never appear).
 */
import { mostRestrictive } from "../limiter/restrictive.ts";
import type { DescriptorOutcome, PolicyOutcome } from "../limiter/types.ts";

export type EnvoyCode = "OK" | "OVER_LIMIT";

export interface EnvoyStatus {
  readonly code: EnvoyCode;
  readonly currentLimit?: { readonly name?: string; readonly requestsPerUnit?: number; readonly unit: string };
  readonly limitRemaining?: number;
  readonly durationUntilReset?: string;
}

export interface EnvoyResponse {
  readonly overallCode: EnvoyCode;
  readonly statuses: readonly EnvoyStatus[];
}

/** What Envoy answers for an `unlimited` descriptor's remaining (MaxUint32). */
export const UNLIMITED_REMAINING = 4_294_967_295;

/** Algorithms whose windows are aligned to the epoch, so "until reset" means "until this window ends", as in Envoy. */
const ALIGNED = new Set(["fixed_window", "sliding_window_counter"]);

/**
 * The response for the outcomes of one request, one status per descriptor
 * in order. `shadowAll` (SHADOW_MODE) turns the overall code to OK but, as in
 * Envoy, leaves each status as it was.
 *
 * @example
 * envoyResponse(outcomes, false, Date.now());
 * // { overallCode: "OK", statuses: [{ code: "OK", currentLimit: { requestsPerUnit: 10, unit: "MINUTE" }, limitRemaining: 9, durationUntilReset: "42s" }] }
 */
export function envoyResponse(outcomes: readonly DescriptorOutcome[], shadowAll: boolean, now: number): EnvoyResponse {
  const statuses = outcomes.map((outcome) => descriptorStatus(outcome, now));
  // As in Envoy: over when a plain descriptor is over, or when there are quota_mode descriptors and all of them are.
  let plainOver = false;
  let quotaTotal = 0;
  let quotaOver = 0;
  statuses.forEach((s, i) => {
    const quota = outcomes[i].match?.quotaMode === true && outcomes[i].policies.length > 0;
    if (quota) quotaTotal += 1;
    if (s.code === "OVER_LIMIT") quota ? (quotaOver += 1) : (plainOver = true);
  });
  const over = plainOver || (quotaTotal > 0 && quotaOver === quotaTotal);
  return { overallCode: over && !shadowAll ? "OVER_LIMIT" : "OK", statuses };
}

/**
 * Every descriptor OK with no limit: the answer FAILURE_MODE=open gives when
 * counters cannot be reached.
 *
 * @example
 * allOk(3); // { overallCode: "OK", statuses: [{ code: "OK" }, { code: "OK" }, { code: "OK" }] }
 */
export function allOk(count: number): EnvoyResponse {
  return { overallCode: "OK", statuses: Array.from({ length: count }, () => ({ code: "OK" as const })) };
}

function descriptorStatus(outcome: DescriptorOutcome, now: number): EnvoyStatus {
  if (outcome.policies.length === 0) {
    return outcome.match?.unlimited ? { code: "OK", limitRemaining: UNLIMITED_REMAINING } : { code: "OK" };
  }
  const policy = reported(outcome.policies);
  // A 0-hit check is over only if the counter already is, as in Envoy (after > limit); ours never pass their limit.
  const rejected = !policy.decision.allowed && outcome.cost > 0;
  const rule = policy.rule;
  const status: { -readonly [K in keyof EnvoyStatus]: EnvoyStatus[K] } = {
    // A refusal enforce_percent does not enforce is forwarded, as a shadow one is (docs/rules.md, "Gradual and soft enforcement").
    code: rejected && !policy.shadow && policy.enforcement !== "not-enforced" ? "OVER_LIMIT" : "OK",
  };
  if (rule !== undefined) {
    status.currentLimit = {
      ...(rule.named ? { name: rule.name } : {}),
      ...(rule.requestsPerUnit > 0 ? { requestsPerUnit: rule.requestsPerUnit } : {}),
      unit: rule.unit.toUpperCase(),
    };
  }
  const remaining = rejected ? 0 : Math.min(policy.decision.remaining, UNLIMITED_REMAINING);
  if (remaining > 0) status.limitRemaining = remaining;
  status.durationUntilReset = `${untilReset(policy, now)}s`;
  return status;
}

// The policy that speaks for a descriptor: the most restrictive of its limits (src/limiter/restrictive.ts).
function reported(policies: readonly PolicyOutcome[]): PolicyOutcome {
  return mostRestrictive(policies, decisionOf) as PolicyOutcome;
}

const decisionOf = (policy: PolicyOutcome) => policy.decision;

// Envoy counts whole seconds to the end of the aligned window; windowless algorithms report when the quota is whole again.
function untilReset(policy: PolicyOutcome, now: number): number {
  const aligned = policy.rule === undefined || ALIGNED.has(policy.rule.algorithm) || policy.decision.limit === 0;
  if (!aligned) return Math.ceil(policy.decision.resetAfterMs / 1000);
  const windowSeconds = Math.max(1, Math.round(policy.windowMs / 1000));
  return windowSeconds - (Math.floor(now / 1000) % windowSeconds);
}
