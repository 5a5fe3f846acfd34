/** Unit-test helper: one counter driven through an algorithm with an injected clock. */
import type { Algorithm, Decision, LimitSpec } from "../../src/algorithms/types.ts";

/**
 * The fields the worked examples state. The effective window has its own
 * property test against an oracle (test/limiter/draft11-fields.node.test.ts).
 */
export type ExampleDecision = Omit<Decision, "effectiveWindowMs">;

/** A counter under test: `hit(now, cost)` decides and keeps the returned state. */
export interface Counter<S> {
  hit(now: number, cost?: number): ExampleDecision;
  readonly state: S | undefined;
}

/**
 * Threads the state of one counter through successive decisions.
 *
 * @example
 * const c = counter(tokenBucket, { limit: 2, windowMs: 1000, burst: 3 });
 * c.hit(0).remaining; // 2
 */
export function counter<S>(algorithm: Algorithm<S>, limit: LimitSpec): Counter<S> {
  let state: S | undefined;
  return {
    hit(now, cost = 1) {
      const step = algorithm.decide(state, limit, now, cost);
      state = step.state;
      const { effectiveWindowMs: _, ...example } = step.decision;
      return example;
    },
    get state() {
      return state;
    },
  };
}

/**
 * Decision literal from positional fields, to keep expectations on one line.
 *
 * @example
 * expect(c.hit(0)).toEqual(decision(true, 2, 1, 500, 0));
 */
export function decision(allowed: boolean, limit: number, remaining: number, resetAfterMs: number, retryAfterMs: number): ExampleDecision {
  return { allowed, limit, remaining, resetAfterMs, retryAfterMs };
}
