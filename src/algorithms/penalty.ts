/**
 * The penalty box (docs/rules.md, "Penalty box"): after a refusal by its
 * window, a key stays refused for `blockMs` whatever the window says; each
 * breach during the block (a hit arriving before it ends) multiplies the
 * block's length by `escalate`, up to `maxBlockMs`, measured from when the
 * block began. Pure, like the algorithms: the clock is passed in, and the
 * counter object keeps the state.
 */
import type { Decision } from "./types.ts";

/** A rate limit's `penalty`, in milliseconds. */
export interface PenaltySpec {
  /** How long a key is refused after a refusal by its window (`block_s` × 1000); at least 1. */
  readonly blockMs: number;
  /** What each breach during a block multiplies its length by (an integer, at least 1; 1: breaches change nothing). */
  readonly escalate: number;
  /** The longest a block lasts from its start (`max_block_s` × 1000); at least `blockMs`. */
  readonly maxBlockMs: number;
}

/** A block: when it ends, and how long it is from its start (so it began at `until - lengthMs`). */
export interface PenaltyState {
  readonly until: number;
  readonly lengthMs: number;
}

/** What one hit does to the penalty state. */
export interface PenaltyStep {
  /** The state to keep (undefined: no block, nothing to keep). */
  readonly state: PenaltyState | undefined;
  /** How long from `now` the key stays refused whatever its window says (0: not blocked). */
  readonly blockedMs: number;
}

/**
 * Whether `state` blocks at `now`; the milliseconds left (0: no block).
 *
 * @example
 * blockLeft({ until: 5_000, lengthMs: 3_000 }, 4_000); // 1000
 * blockLeft({ until: 5_000, lengthMs: 3_000 }, 5_000); // 0
 */
export function blockLeft(state: PenaltyState | undefined, now: number): number {
  return state !== undefined && now < state.until ? state.until - now : 0;
}

/**
 * One hit of a key under a penalty at `now`. During a block, the hit is a
 * breach: the block grows to `min(lengthMs × escalate, maxBlockMs)` from
 * its start (never shorter than it was). Otherwise a hit the window refused
 * (`refusedByWindow`) starts a block of `blockMs`, and any other hit leaves
 * no block. A peek (cost 0) is no hit: use `blockLeft`.
 *
 * @example
 * const spec = { blockMs: 3_000, escalate: 2, maxBlockMs: 10_000 };
 * penaltyStep(undefined, spec, 1_000, true);      // { state: { until: 4_000, lengthMs: 3_000 }, blockedMs: 3_000 }
 * penaltyStep({ until: 4_000, lengthMs: 3_000 }, spec, 2_000, false); // { state: { until: 7_000, lengthMs: 6_000 }, blockedMs: 5_000 }
 */
export function penaltyStep(state: PenaltyState | undefined, spec: PenaltySpec, now: number, refusedByWindow: boolean): PenaltyStep {
  if (blockLeft(state, now) > 0) {
    const held = state as PenaltyState;
    const start = held.until - held.lengthMs;
    // A block made under a longer max (the rules changed) is kept, never shortened.
    const lengthMs = Math.max(held.lengthMs, Math.min(held.lengthMs * spec.escalate, spec.maxBlockMs));
    const next = lengthMs === held.lengthMs ? held : { until: start + lengthMs, lengthMs };
    return { state: next, blockedMs: next.until - now };
  }
  if (!refusedByWindow) return { state: undefined, blockedMs: 0 };
  return { state: { until: now + spec.blockMs, lengthMs: spec.blockMs }, blockedMs: spec.blockMs };
}

/**
 * A window's decision as the block makes it: refused, nothing remaining,
 * and no retry (nor full quota) before the block ends. `decision` is the
 * window's own, for the same cost (its retry stays when it is later, e.g.
 * Infinity for a cost that never fits).
 *
 * @example
 * blockedDecision({ allowed: true, limit: 2, remaining: 1, resetAfterMs: 500, retryAfterMs: 0, effectiveWindowMs: 500 }, 3_000);
 * // { allowed: false, limit: 2, remaining: 0, resetAfterMs: 3000, retryAfterMs: 3000, effectiveWindowMs: 3000 }
 */
export function blockedDecision(decision: Decision, blockedMs: number): Decision {
  return {
    allowed: false,
    limit: decision.limit,
    remaining: 0,
    resetAfterMs: Math.max(decision.resetAfterMs, blockedMs),
    retryAfterMs: Math.max(decision.allowed ? 0 : decision.retryAfterMs, blockedMs),
    effectiveWindowMs: Math.max(decision.effectiveWindowMs, blockedMs),
  };
}
