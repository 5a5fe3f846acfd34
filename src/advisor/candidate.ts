/**
 * Candidate limits in a replay (a `candidate` rate limit beside a live
 * one: evaluated on the same key, never enforced, docs/rules.md "Gradual
 * and soft enforcement"): the replay decides it on its own counter beside
 * the live limit and the report shows its figures side by side
 * (docs/advisor.md, "Replay").
 */
import type { CompiledLimit } from "../rules/types.ts";

/**
 * The candidate a compiled limit carries, if any.
 *
 * @example
 * candidateOf(limit)?.limit; // the candidate's requests per window
 */
export function candidateOf(limit: CompiledLimit): CompiledLimit | undefined {
  return limit.candidate;
}

/** Where a candidate's state is kept in a replay: apart from every live counter. */
export const CANDIDATE_SUFFIX = "\u0001candidate";
