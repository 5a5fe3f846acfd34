/**
 * Gradual and soft enforcement at decision time (docs/rules.md, "Gradual
 * and soft enforcement"): which refusals of an `enforce_percent` limit are
 * enforced, and how a `soft_percent` limit's counter (which counts against
 * its ceiling) reads against the limit as written.
 */
import type { Decision } from "../algorithms/types.ts";
import type { CompiledLimit } from "../rules/types.ts";
import { halfSipHash, type ShardKey } from "../stored/shard-hash.ts";

/** How a limit's answer was softened: forwarded over the limit, or a refusal not enforced. */
export type Enforcement = "soft" | "not-enforced";

/** Keys of the enforcement hash, per shard key: derived once per isolate. */
const derived = new WeakMap<ShardKey, ShardKey>();

/**
 * The share bucket (0–99) of a counter key: HalfSipHash-2-4 of it, modulo
 * 100, keyed by a key derived from the deployment's shard key (`SHARD_KEY`,
 * or the one derived from the counters namespace: docs/deploy.md, "Shard
 * key"). A limit with `enforce_percent: P` enforces the refusals of the
 * keys whose bucket is below P: the same keys every time and in every
 * isolate (one client is refused always or never), raising P only adds
 * keys, and no client can choose a key value outside the share without the
 * secret.
 *
 * @example
 * enforcementBucket("api\u0000user\u0000alice", edge.shardKey); // an integer from 0 to 99, the same on every isolate of a deployment
 */
export function enforcementBucket(key: string, shardKey: ShardKey): number {
  let keyed = derived.get(shardKey);
  if (keyed === undefined)
    derived.set(shardKey, (keyed = { k0: halfSipHash(shardKey, "floodgate/enforce_percent/0"), k1: halfSipHash(shardKey, "floodgate/enforce_percent/1") }));
  return halfSipHash(keyed, key) % 100;
}

/**
 * Whether `limit`'s refusals of a counter whose share bucket is `bucket`
 * (enforcementBucket; undefined when the plan computed none) are enforced.
 *
 * @example
 * enforced({ ...limit, enforcePercent: 0 }, 5); // false: every refusal is forwarded
 */
export function enforced(limit: CompiledLimit, bucket: number | undefined): boolean {
  return limit.enforcePercent === undefined || (bucket ?? 0) < limit.enforcePercent;
}

/**
 * What became of the counter's `decision` on `limit` for a counter of share `bucket`:
 * `soft` when it was allowed past the limit as written (a `soft_percent`
 * limit, within its ceiling), `not-enforced` when it was refused and the
 * key's refusals are not enforced; else undefined (the decision stands).
 *
 * @example
 * enforcementOf(limit, decision, planned.enforcementBucket); // "soft" for the 11th request of a limit of 10 with soft_percent 20
 */
export function enforcementOf(limit: CompiledLimit, decision: Decision, bucket: number | undefined): Enforcement | undefined {
  if (!decision.allowed) return enforced(limit, bucket) ? undefined : "not-enforced";
  const soft = limit.soft;
  return soft !== undefined && decision.remaining < limit.burst - soft.burst ? "soft" : undefined;
}

/**
 * The counter's `decision` on a `soft_percent` limit as the headers and
 * clients see it: of the limit as written, nothing remaining past it (the
 * soft allowance is never advertised). Unchanged for other limits.
 *
 * @example
 * writtenDecision(limit, { ...decision, limit: 12, remaining: 3 }); // { ...decision, limit: 10, remaining: 1 } (soft_percent 20 on 10)
 */
export function writtenDecision(limit: CompiledLimit, decision: Decision): Decision {
  const soft = limit.soft;
  if (soft === undefined) return decision;
  return { ...decision, limit: soft.limit, remaining: Math.max(0, decision.remaining - (limit.burst - soft.burst)) };
}
