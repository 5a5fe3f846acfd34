/**
 * Charging `k` hits at once at one instant is the same as charging them one
 * at a time at that instant, for every algorithm: the same answer (allowed
 * exactly when all `k` single hits would be) and the very same state after.
 * The counter object relies on it to take a pre-counted flush of `k` hits
 * "one at a time while they fit" with a few decisions instead of `k`.
 */
import fc from "fast-check";
import { describe, it } from "vitest";
import { algorithms, exactArithmeticOk } from "../../src/algorithms/index.ts";
import type { Algorithm, AlgorithmName, LimitSpec } from "../../src/algorithms/types.ts";
import { ensure, largeScenarios, SEED, smallScenarios, type Scenario } from "./harness.ts";

const BUCKETS: readonly AlgorithmName[] = ["token_bucket", "leaky_bucket", "gcra"];

// The state a scenario leaves behind, each request decided in turn.
function replay(alg: Algorithm<unknown>, { limit, start, events }: Scenario): { state: unknown; now: number } {
  let state: unknown;
  let now = start;
  for (const { gap, cost } of events) {
    now += gap;
    state = alg.decide(state, limit, now, cost).state;
  }
  return { state, now };
}

function checkBatched(alg: Algorithm<unknown>, limit: LimitSpec, state: unknown, now: number, k: number): void {
  const once = alg.decide(state, limit, now, k);
  let folded = state;
  let all = true;
  for (let i = 0; i < k; i++) {
    const step = alg.decide(folded, limit, now, 1);
    if (!step.decision.allowed) {
      all = false;
      break;
    }
    folded = step.state;
  }
  const where = () => `${alg.name} ${JSON.stringify(limit)} at ${now}, k=${k}, state ${JSON.stringify(state)}`;
  ensure(
    once.decision.allowed === all,
    () => `k at once ${once.decision.allowed ? "allowed" : "rejected"}, one at a time ${all ? "all fit" : "not all fit"}: ${where()}`,
  );
  if (all)
    ensure(
      JSON.stringify(once.state) === JSON.stringify(folded),
      () => `states differ: ${JSON.stringify(once.state)} vs ${JSON.stringify(folded)}: ${where()}`,
    );
}

describe("k hits at once equal k single hits at the same instant", () => {
  for (const name of Object.keys(algorithms) as AlgorithmName[]) {
    const alg = algorithms[name] as Algorithm<unknown>;
    const bucket = BUCKETS.includes(name);

    it(`${name}: small limits, every k up to the capacity and past it`, () => {
      fc.assert(
        fc.property(smallScenarios({ bucket }), fc.integer({ min: 0, max: 5 }), (scenario, extra) => {
          const { state, now } = replay(alg, scenario);
          const cap = bucket ? scenario.limit.burst : scenario.limit.limit;
          for (let k = 1; k <= cap + 2; k++) checkBatched(alg, scenario.limit, state, now + extra, k);
        }),
        { seed: SEED, numRuns: 300 },
      );
    });

    it(`${name}: production-sized limits`, () => {
      const scenarios = largeScenarios({ bucket, exactOk: (l) => !bucket || exactArithmeticOk(l, name) });
      fc.assert(
        fc.property(scenarios, fc.integer({ min: 1, max: 400 }), (scenario, k) => {
          const { state, now } = replay(alg, scenario);
          for (const each of [1, 2, k]) checkBatched(alg, scenario.limit, state, now, each);
        }),
        { seed: SEED, numRuns: 60 },
      );
    });
  }
});
