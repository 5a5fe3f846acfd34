/**
 * Folding the counters' verdicts back into the descriptors' outcomes: one
 * PolicyOutcome per limit of every planned call.
 */
import type { CounterVerdict } from "../stored/wire-calls.ts";
import { actionOf, type DraftOutcome, type PlannedCall } from "./plan.ts";
import { enforcementOf, writtenDecision } from "./enforcement.ts";
import type { PolicyOutcome } from "./types.ts";

/**
 * Add each call's policies to its outcome; `answers[i][j]` is the verdict
 * on `groups[i][j]`.
 *
 * @example
 * fold(plan.outcomes, [...plan.byObject.values()], answers);
 */
export function fold(outcomes: readonly DraftOutcome[], groups: readonly (readonly PlannedCall[])[], answers: readonly (readonly CounterVerdict[])[]): void {
  for (let i = 0; i < groups.length; i++) {
    const calls = groups[i];
    for (let j = 0; j < calls.length; j++) {
      const planned = calls[j];
      const outcome = outcomes[planned.outcome];
      const verdict = answers[i][j];
      if (verdict.chargedAt !== undefined) outcome.chargedAt = verdict.chargedAt;
      const into = planned.candidate === true ? (outcome.candidates ??= []) : outcome.policies;
      for (let k = 0; k < planned.limits.length; k++) {
        const limit = planned.limits[k];
        const decision = verdict.decisions[k];
        // Optional fields set only when present (no spreads: this runs for every limit of every request).
        const policy: { -readonly [F in keyof PolicyOutcome]: PolicyOutcome[F] } = {
          domain: outcome.domain,
          descriptor: outcome.descriptor,
          name: limit.name,
          windowMs: limit.windowMs,
          shadow: outcome.match?.shadowMode ?? false,
          decision: limit.soft === undefined ? decision : writtenDecision(limit, decision),
          rule: limit,
        };
        // Gradual and soft enforcement (docs/rules.md): a candidate is never enforced, whatever its own fields.
        const enforcement = planned.candidate === true ? undefined : enforcementOf(limit, decision, planned.enforcementBucket);
        if (enforcement !== undefined) policy.enforcement = enforcement;
        const action = actionOf(limit, planned.honoured);
        if (action !== undefined) policy.onLimit = action;
        if (outcome.match?.quotaMode) policy.quota = true;
        if (verdict.delayMs) policy.delayMs = verdict.delayMs;
        if (limit.concurrency !== undefined) policy.quotaUnit = "concurrent-requests";
        else if (outcome.quotaUnit !== undefined) policy.quotaUnit = outcome.quotaUnit;
        into.push(policy);
      }
    }
  }
}
