/**
 * Candidate limits (docs/rules.md, "Gradual and soft enforcement"): a
 * limit's `candidate` is counted on the same key, in the same object and
 * the same RPC as its live limit, in a call of its own, so its answer
 * never changes whether the live limit takes the request's hits.
 */
import type { CounterCall } from "../stored/wire-calls.ts";
import { limitFacts } from "../rules/facts.ts";
import type { CompiledLimit } from "../rules/types.ts";
import { counterCall } from "./calls.ts";
import type { EdgeCall } from "../isolate/runtime.ts";

/** A planned call as far as its candidate needs it (plan.ts's PlannedCall, which the candidate's call also is). */
export interface CandidateCall extends EdgeCall {
  readonly outcome: number;
  readonly limits: readonly CompiledLimit[];
  readonly honoured: boolean;
  readonly candidate?: true;
}

/**
 * The candidates of `limits`, in order; undefined when none has one (no allocation then).
 *
 * @example
 * candidatesOf(node.limits); // [limit.candidate] for a node whose one limit has a candidate
 */
export function candidatesOf(limits: readonly CompiledLimit[]): CompiledLimit[] | undefined {
  let found: CompiledLimit[] | undefined;
  for (const limit of limits) if (limit.candidate !== undefined) (found ??= []).push(limit.candidate);
  return found;
}

/**
 * The call that counts `candidates` beside the planned `live` call: the
 * same key, cost and object (relayed when the live one is), answered from
 * the same places (block cache, pre-count), but never with a slot, a
 * reservation or a refund, and never honouring `on_limit`.
 *
 * @example
 * list.push(live, candidateCall(live, candidates));
 */
export function candidateCall(live: CandidateCall, candidates: readonly CompiledLimit[]): CandidateCall {
  const direct = counterCall(live.call.key, candidates, live.call.cost, false);
  const call: CounterCall = live.call.kind === "relay" ? { ...direct, kind: "relay", object: live.call.object } : direct;
  // A candidate of 0 beside a live limit no state can allow is answered by the rules too.
  const refused = live.cacheable || live.refused !== undefined ? limitFacts(candidates).refusal : undefined;
  const planned: CandidateCall = { call, cacheable: live.cacheable, outcome: live.outcome, limits: candidates, honoured: false, candidate: true };
  return Object.assign(planned, {
    ...(live.syncMs !== undefined ? { syncMs: live.syncMs } : {}),
    ...(live.leasable !== undefined ? { leasable: live.leasable } : {}),
    ...(refused !== undefined ? { refused } : {}),
  });
}
