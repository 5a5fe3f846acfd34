/**
 * The hook for candidate limits (a `candidate` rate limit beside a live
 * one: evaluated on the same key, never enforced). Where the compiled
 * rules carry one, the replay decides it on its own counter beside the
 * live limit and the report shows its figures side by side
 * (docs/advisor.md, "Replay"); rules without it are replayed as before.
 */
import type { CompiledLimit } from "../rules/types.ts";

/**
 * The candidate a compiled limit carries, if any.
 *
 * @example
 * candidateOf(limit)?.limit; // the candidate's requests per window
 */
export function candidateOf(limit: CompiledLimit): CompiledLimit | undefined {
  const candidate = (limit as { readonly candidate?: unknown }).candidate;
  return typeof candidate === "object" && candidate !== null && typeof (candidate as CompiledLimit).algorithm === "string"
    ? (candidate as CompiledLimit)
    : undefined;
}

/** Where a candidate's state is kept in a replay: apart from every live counter. */
export const CANDIDATE_SUFFIX = "\u0001candidate";
