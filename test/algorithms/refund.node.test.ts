/**
 * Refunds (`count_when`): charging k hits and giving them back leaves the
 * counter as if they had never been charged, checked against the exact
 * oracles. The window algorithms are exact whenever the refund comes; the
 * buckets are exact at the charge's instant and, later, never credit more
 * than the exact answer (they may credit less).
 */
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

/**
 * A bucket refunded later than its charge (`count_when` decides after the
 * response): from the refund on, every request, however many follow, is
 * decided between two exact oracles fed the same allowed hits: one that
 * never saw the refunded hits (the algorithm never allows what it refuses:
 * no more than the exact credit) and one that saw them and got nothing back
 * (it never refuses what that one allows). At the refund's instant the
 * credit is at least k less the refill since the charge.
 * Breaks tried in bucketCredit: giving k back whatever the time since the
 * charge (caught by the upper oracle); giving nothing back; and, later than
 * the charge, one ms of refill less than the bound (caught here only, by the
 * lower bound: the tests above check no lower bound).
 */
function checkLateRefund(name: AlgorithmName, { limit, start, events }: Scenario, charged: number, refundAt: number): void {
  const alg = algorithms[name] as Algorithm<unknown>;
  const upper = ORACLES[name](limit);
  const lower = ORACLES[name](limit);
  let state: unknown;
  let now = start;
  let chargedAt: number | undefined;
  let refunded = false;
  for (const [i, { gap, cost }] of events.entries()) {
    now += gap;
    const step = alg.decide(state, limit, now, cost);
    const where = () => `${name} ${JSON.stringify(limit)} request #${i} at ${now} cost ${cost}, charged #${charged} at ${chargedAt}, refund after #${refundAt}`;
    if (!refunded) ensure(step.decision.allowed === lower.fits(now, cost), () => `disagrees with the oracle before the refund: ${where()}`);
    else {
      ensure(!step.decision.allowed || upper.fits(now, cost), () => `refund credited more than the exact answer: ${where()}`);
      ensure(step.decision.allowed || !lower.fits(now, cost), () => `refund took quota away: ${where()}`);
    }
    state = step.state;
    if (step.decision.allowed && cost > 0) {
      lower.commit(now, cost);
      if (i === charged && !refunded) chargedAt = now;
      else upper.commit(now, cost);
    }
    if (i === refundAt && chargedAt !== undefined) {
      const k = events[charged].cost;
      const before = state;
      state = refund(name, state, limit, now, chargedAt, k);
      refunded = true;
      // At least k less the refill since the charge (limit per window), as whole tokens, up to the capacity.
      const least = Math.max(0, k - Math.ceil(((now - chargedAt) * limit.limit) / limit.windowMs));
      for (let c = 1; c <= limit.burst; c++) {
        if (!alg.decide(before, limit, now, Math.max(0, c - least)).decision.allowed) continue;
        ensure(alg.decide(state, limit, now, c).decision.allowed, () => `refund credited less than ${least} of ${k} (probe cost ${c}): ${where()}`);
      }
    }
  }
}

describe("late bucket refunds, every request after them", () => {
  for (const name of BUCKETS) {
    it(`${name}: between the exact credit and no credit, and at least k less the refill at once`, () => {
      fc.assert(
        fc.property(scenarioArb, fc.integer({ min: 1, max: 40 }), ({ scenario, charged }, later) => {
          if (scenario.limit.limit === 0 || scenario.limit.burst === 0) return;
          const c = charged % scenario.events.length;
          checkLateRefund(name, scenario, c, Math.min(scenario.events.length - 1, c + later));
        }),
        { seed: SEED, numRuns: 1_000 },
      );
    });
  }
});
