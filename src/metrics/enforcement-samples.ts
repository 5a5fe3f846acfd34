/**
 * The series of gradual and soft enforcement (docs/metrics.md): requests
 * forwarded `not-enforced` or `soft`, and a candidate limit's would-be
 * refusals beside the live limit it stands by.
 */
import type { PolicyOutcome } from "../limiter/types.ts";
import { CANDIDATE_REFUSALS, ENFORCEMENT_DECISIONS } from "./names.ts";
import type { Sample } from "./samples.ts";

/**
 * One request `policy` forwarded under its `enforcement`.
 *
 * @example
 * enforcementSample("api", "user", policy); // { name: "floodgate_enforcement_decisions_total", labels: [..., ["decision", "soft"]], value: 1 }
 */
export function enforcementSample(domain: string, descriptor: string, policy: PolicyOutcome): Sample {
  return {
    name: ENFORCEMENT_DECISIONS,
    labels: [
      ["domain", domain],
      ["descriptor", descriptor],
      ["limit", policy.name],
      ["decision", policy.enforcement ?? "enforced"],
    ],
    value: 1,
  };
}

/**
 * One request the candidate `policy` would have refused.
 *
 * @example
 * candidateRefusalSample("api", "user", policy); // labels [..., ["limit", "per-user"], ["candidate", "per-user/candidate"]]
 */
export function candidateRefusalSample(domain: string, descriptor: string, policy: PolicyOutcome): Sample {
  return {
    name: CANDIDATE_REFUSALS,
    labels: [
      ["domain", domain],
      ["descriptor", descriptor],
      ["limit", policy.rule?.candidateOf ?? ""],
      ["candidate", policy.name],
    ],
    value: 1,
  };
}
