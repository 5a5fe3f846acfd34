/**
 * A budget charged from the answer (`cost_from_response`: a usage report, a
 * header) is counted in the metrics and the dashboard when its charge
 * settles, not when it is reserved (docs/llm.md, "Costs and limits"): its
 * admitted hits are the tokens it was finally charged, the refund of an
 * unused reservation and the extra charge of a larger report included.
 * Refused reservations are counted at once, as any refusal.
 */
import { limitStats, type StatDelta } from "./stats.ts";
import type { DescriptorOutcome, PolicyOutcome } from "../limiter/types.ts";

/**
 * Whether `policy` of `outcome` is counted when its charge settles: the
 * descriptor took hits a response settles (a concurrency slot is not a count).
 *
 * @example
 * if (settlesLater(outcome, policy)) continue; // counted by recordSettled
 */
export function settlesLater(outcome: DescriptorOutcome, policy: PolicyOutcome): boolean {
  return outcome.costFromResponse !== undefined && outcome.chargedAt !== undefined && policy.rule?.concurrency === undefined;
}

/**
 * One policy's stats for a request that reserved `reserved` and was charged
 * `charged`: as if it had been decided with `charged` hits from the same
 * count before it (the decision's `remaining` is after the reservation).
 *
 * @example
 * settledStats(policy, 500, 42); // { total_hits: 42, within_limit: 42, near_limit: 0, … }
 */
export function settledStats(policy: PolicyOutcome, reserved: number, charged: number): StatDelta {
  const decision = policy.decision;
  return limitStats({ ...decision, allowed: true, remaining: decision.remaining + reserved - charged }, charged, true, false);
}
