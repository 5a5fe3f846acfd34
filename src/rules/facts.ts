/**
 * What a node's limits imply whatever the request (docs/architecture.md,
 * "Rules facts"): computed by the compiler once per node, so the engine
 * reads them instead of working them out, or keeping them, per request.
 */
import type { Decision } from "../algorithms/types.ts";
import type { CompiledLimit, LimitFacts } from "./types.ts";

/**
 * The decision every algorithm gives a limit of 0 whatever its state
 * (src/algorithms/arith.ts, zeroLimit): one frozen object, so the answer
 * made from it (its 429) can be made once.
 */
export const ZERO_LIMIT: Decision = Object.freeze({
  allowed: false,
  limit: 0,
  remaining: 0,
  resetAfterMs: 0,
  retryAfterMs: Infinity,
  effectiveWindowMs: Infinity,
});

/**
 * The facts of `limits`.
 *
 * @example
 * limitFacts(node.limits).refusal; // set for a node whose every limit is 0
 */
export function limitFacts(limits: readonly CompiledLimit[]): LimitFacts {
  let zero = limits.length > 0;
  let acts = false;
  let refundable = false;
  let relayable = true;
  let slotted = false;
  let penalized = false;
  let syncMs: number | undefined = limits.length > 0 ? Infinity : undefined;
  for (const limit of limits) {
    if (limit.limit !== 0 || limit.concurrency !== undefined) zero = false;
    if (limit.onLimit === "delay" || limit.onLimit === "queue") acts = true;
    if (limit.countWhen !== undefined) refundable = true;
    if (limit.strict === true || limit.concurrency !== undefined || limit.precount !== undefined) relayable = false;
    if (limit.concurrency !== undefined) slotted = true;
    // A block is kept at the home object: a region's copy deciding from leased quota would not see it.
    if (limit.penalty !== undefined) {
      penalized = true;
      relayable = false;
    }
    syncMs = limit.precount === undefined || syncMs === undefined ? undefined : Math.min(syncMs, limit.precount.syncMs);
  }
  const facts: { -readonly [K in keyof LimitFacts]: LimitFacts[K] } = { acts, refundable, relayable, slotted };
  if (zero) facts.refusal = Object.freeze({ allowed: false, decisions: Object.freeze(limits.map(() => ZERO_LIMIT)) });
  if (syncMs !== undefined) facts.precountSyncMs = syncMs;
  if (penalized) facts.penalized = true;
  return Object.freeze(facts);
}

/**
 * `limit`, frozen, with an empty LimitKept holder as `kept`: not enumerable,
 * so the limit compares, prints, serializes and crosses an RPC as before.
 *
 * @example
 * return freezeWithKept({ limit: 10, windowMs: 60_000, ... });
 */
export function freezeWithKept<T extends object>(limit: T): Readonly<T> {
  Object.defineProperty(limit, "kept", { value: {}, enumerable: false });
  return Object.freeze(limit);
}
