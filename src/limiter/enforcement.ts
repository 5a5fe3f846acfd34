/**
 * Gradual and soft enforcement at decision time (docs/rules.md, "Gradual
 * and soft enforcement"): which refusals of an `enforce_percent` limit are
 * enforced, and how a `soft_percent` limit's counter (which counts against
 * its ceiling) reads against the limit as written.
 */
import type { Decision } from "../algorithms/types.ts";
import type { CompiledLimit } from "../rules/types.ts";

/** How a limit's answer was softened: forwarded over the limit, or a refusal not enforced. */
export type Enforcement = "soft" | "not-enforced";

/**
 * The share bucket (0–99) of a counter key: FNV-1a of its UTF-16 code
 * units, modulo 100. A limit with `enforce_percent: P` enforces the
 * refusals of the keys whose bucket is below P: the same keys every time
 * (one client is refused always or never), and raising P only adds keys.
 *
 * @example
 * enforcementBucket("api\u0000user\u0000alice"); // an integer from 0 to 99, the same on every isolate
 */
export function enforcementBucket(key: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % 100;
}

/**
 * Whether `limit`'s refusals of the counter `key` are enforced.
 *
 * @example
 * enforced({ ...limit, enforcePercent: 0 }, key); // false: every refusal is forwarded
 */
export function enforced(limit: CompiledLimit, key: string): boolean {
  return limit.enforcePercent === undefined || enforcementBucket(key) < limit.enforcePercent;
}

/**
 * What became of the counter's `decision` on `limit` for the counter `key`:
 * `soft` when it was allowed past the limit as written (a `soft_percent`
 * limit, within its ceiling), `not-enforced` when it was refused and the
 * key's refusals are not enforced; else undefined (the decision stands).
 *
 * @example
 * enforcementOf(limit, decision, outcomeKey); // "soft" for the 11th request of a limit of 10 with soft_percent 20
 */
export function enforcementOf(limit: CompiledLimit, decision: Decision, key: string): Enforcement | undefined {
  if (!decision.allowed) return enforced(limit, key) ? undefined : "not-enforced";
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
