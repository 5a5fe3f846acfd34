/**
 * Refunds (`count_when`): charging k hits and giving them back leaves the
 * counter as if they had never been charged, checked against the exact
 * oracles. The window algorithms are exact whenever the refund comes; the
 * buckets are exact at the charge's instant and, later, never credit more
 * than the exact answer (they may credit less).
 */
// @ts-nocheck

import fc from "fast-check";
import { describe, it } from "vitest";
import { algorithms, BUCKET_ALGORITHMS, EXACT_REFUND, refund } from "../../src/algorithms/index.ts";
import type { Algorithm, AlgorithmName } from "../../src/algorithms/types.ts";
import { ensure, SEED, sameDecision, type Scenario, smallScenarios } from "./harness.ts";
import { ORACLES } from "./oracles.ts";

const BUCKETS = BUCKET_ALGORITHMS;

/**
 * Replays `scenario`; request `charged` (if allowed and not free) is refunded
 * right after request `refundAt` (≥ charged), at that request's instant.
 * Before the refund the algorithm must agree with an oracle that saw the
 * charge; after it, with one that never did: exactly, or (buckets refunded
 * later than the charge) never allowing what that oracle refuses.
 */
function checkRefund(name: AlgorithmName, { limit, start, events }: Scenario, charged: number, refundAt: number): void {
  const alg = algorithms[name] as Algorithm<unknown>;
  const withCharge = ORACLES[name](limit);
  const without = ORACLES[name](limit);
  let state: unknown;
  let now = start;
  let chargedAt: number | undefined;
  let refunded = false;
  let exact = true;
  for (const [i, { gap, cost }] of events.entries()) {
    now += gap;
    const step = alg.decide(state, limit, now, cost);
    const oracle = refunded ? without : withCharge;
    const where = () => `${name} ${JSON.stringify(limit)} request #${i} at ${now} cost ${cost}, charged #${charged} at ${chargedAt}, refund after #${refundAt}`;
    if (exact) ensure(step.decision.allowed === oracle.fits(now, cost), () => `disagrees with the oracle: ${where()}`);
    else {
      ensure(!step.decision.allowed || without.fits(now, cost), () => `refund credited more than the exact answer: ${where()}`);
      return;
    }
    state = step.state;
    if (step.decision.allowed && cost > 0) {
      withCharge.commit(now, cost);
      if (i === charged) chargedAt = now;
      else without.commit(now, cost);
    }
    if (i === refundAt && chargedAt !== undefined) {
      state = refund(name, state, limit, now, chargedAt, events[charged].cost);
      refunded = true;
      exact = EXACT_REFUND.has(name) || now === chargedAt;
    }
  }
}

const scenarioArb = fc.record({
  scenario: smallScenarios({ bucket: true }),
  charged: fc.nat(),
  later: fc.nat({ max: 6 }),
});

describe("charge k then refund k", () => {
  for (const name of Object.keys(algorithms) as AlgorithmName[]) {
    const bucket = BUCKETS.includes(name);
    it(`${name}: agrees with an oracle that never saw the refunded hits`, () => {
      fc.assert(
        fc.property(scenarioArb, ({ scenario, charged, later }) => {
          const s = bucket ? scenario : { ...scenario, limit: { ...scenario.limit, burst: scenario.limit.limit } };
          const c = charged % s.events.length;
          checkRefund(name, s, c, Math.min(s.events.length - 1, c + later));
        }),
        { seed: SEED, numRuns: 400 },
      );
    });

    it(`${name}: at the same instant, the state answers as if nothing had been charged`, () => {
      fc.assert(
        fc.property(scenarioArb, fc.integer({ min: 1, max: 6 }), ({ scenario }, k) => {
          const limit = bucket ? scenario.limit : { ...scenario.limit, burst: scenario.limit.limit };
          const alg = algorithms[name] as Algorithm<unknown>;
          let state: unknown;
          let now = scenario.start;
          for (const { gap, cost } of scenario.events) {
            now += gap;
            state = alg.decide(state, limit, now, cost).state;
          }
          const charge = alg.decide(state, limit, now, k);
          if (!charge.decision.allowed) return;
          const back = refund(name, charge.state, limit, now, now, k);
          for (const t of [now, now + 1, now + limit.windowMs, now + 2 * limit.windowMs + 1])
            for (const c of [0, 1, k]) {
              const a = alg.decide(back, limit, t, c).decision;
              const b = alg.decide(state, limit, t, c).decision;
              ensure(
                sameDecision(a, b),
                () => `${name} ${JSON.stringify(limit)} k=${k} at ${now}: ${JSON.stringify(a)} vs ${JSON.stringify(b)} (probe ${t}, ${c})`,
              );
            }
        }),
        { seed: SEED, numRuns: 400 },
      );
    });
  }

  it("a refund of a counter already dropped leaves it dropped", () => {
    ensure(refund("gcra", undefined, { limit: 1, windowMs: 10, burst: 1 }, 5, 0, 1) === undefined, () => "state invented");
  });
});
