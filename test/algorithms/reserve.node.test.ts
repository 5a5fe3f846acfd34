/**
 * `reserve` (on_limit "delay" and queue pacing): unit cases, then random
 * traces of reservations checked against the exact bucket oracle — every
 * slot respects the burst and the rate, slots are at least the emission
 * interval apart at burst 1, no slot is later than needed, and nothing is
 * reserved beyond `maxDelayMs`.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  exactArithmeticOk,
  fixedWindow,
  gcra,
  leakyBucket,
  reserve,
  RESERVABLE,
  tokenBucket,
  type Algorithm,
  type LimitSpec,
} from "../../src/algorithms/index.ts";
import { bucketBound, ensure, largeScenarios, SEED, smallScenarios, type Scenario } from "./harness.ts";
import { bucketOracle, fixedWindowOracle } from "./oracles.ts";

const BUCKETS = [tokenBucket, leakyBucket, gcra] as readonly Algorithm<unknown>[];
const anyGcra = gcra as Algorithm<unknown>;
const anyToken = tokenBucket as Algorithm<unknown>;
const anyFixed = fixedWindow as Algorithm<unknown>;
const one = (algorithm: Algorithm<unknown>, state: unknown, limit: LimitSpec) => [{ algorithm, state, limit, reserve: true }];

/** Reserve every event of a scenario in turn; check each answer and the final schedule. */
function checkReservations(algorithm: Algorithm<unknown>, { limit, start, events }: Scenario, maxDelayMs: number): void {
  let state: unknown;
  let now = start;
  const slots: [number, number][] = [];
  const unitCosts = events.every((e) => e.cost === 1);
  // With unit costs slots come in time order, so the sequential oracle fed
  // with the slots is the exact model of the schedule.
  const oracle = bucketOracle(limit);
  for (const [index, { gap, cost }] of events.entries()) {
    now += gap;
    const plain = algorithm.decide(state, limit, now, cost);
    const r = reserve(one(algorithm, state, limit), now, cost, maxDelayMs);
    const where = () => `reservation #${index} at ${now} cost ${cost} (max ${maxDelayMs}): ${JSON.stringify(r)}`;
    const wait = plain.decision.retryAfterMs;
    if (plain.decision.allowed) {
      ensure(r.allowed && r.delayMs === 0, () => `allowed now but not reserved now: ${where()}`);
    } else if (r.allowed) {
      // The slot is the exact retry-after: the earliest instant it fits.
      ensure(r.delayMs === wait && wait >= 1 && wait <= maxDelayMs, () => `slot is not the retry-after within the bound: ${where()}`);
      ensure(r.steps[0].decision.allowed && r.steps[0].decision.retryAfterMs === 0, () => `slot decision not allowed: ${where()}`);
    } else {
      ensure(wait > maxDelayMs, () => `rejected though a slot within maxDelayMs exists: ${where()}`);
      ensure(r.steps[0].state === (state ?? r.steps[0].state) && r.delayMs === 0, () => `a rejected reservation consumed: ${where()}`);
    }
    if (!r.allowed) continue;
    state = r.steps[0].state;
    if (cost === 0) continue;
    const slot = now + r.delayMs;
    slots.push([slot, cost]);
    if (unitCosts) {
      ensure(oracle.fits(slot, 1), () => `oracle rejects the slot: ${where()}`);
      ensure(r.delayMs === 0 || !oracle.fits(slot - 1, 1), () => `slot later than needed per oracle: ${where()}`);
      oracle.commit(slot, 1);
    }
  }
  const schedule = [...slots].sort((a, b) => a[0] - b[0]);
  // Never more than the burst at once, never faster than the rate over any interval.
  bucketBound(limit, schedule);
  if (limit.burst === 1) {
    for (let i = 1; i < schedule.length; i++) {
      const apart = BigInt(schedule[i][0] - schedule[i - 1][0]) * BigInt(limit.limit);
      ensure(apart >= BigInt(limit.windowMs), () => `slots ${schedule[i - 1][0]} and ${schedule[i][0]} closer than the emission interval`);
    }
  }
}

const maxDelayArb = fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 100 }), fc.integer({ min: 0, max: 2_147_483_647 }));

describe("reserve", () => {
  const spec = { limit: 5, windowMs: 1000, burst: 1 }; // one every 200 ms

  it("reserves consecutive slots one emission interval apart, then refuses past maxDelayMs", () => {
    let state: unknown;
    const delays: number[] = [];
    for (let i = 0; i < 7; i++) {
      const r = reserve(one(gcra, state, spec), 0, 1, 1000);
      delays.push(r.allowed ? r.delayMs : -1);
      if (r.allowed) state = r.steps[0].state;
    }
    expect(delays).toEqual([0, 200, 400, 600, 800, 1000, -1]);
    // The refusal consumed nothing: 1 ms later the slot at 1200 is still the next one.
    expect(reserve(one(gcra, state, spec), 1, 1, 2000).delayMs).toBe(1199);
  });

  it("a cost above the burst, a limit of 0 and a non-reservable window are refused", () => {
    expect(reserve(one(tokenBucket, undefined, spec), 0, 2, 10_000).allowed).toBe(false);
    expect(reserve(one(tokenBucket, undefined, { ...spec, limit: 0 }), 0, 1, 10_000).allowed).toBe(false);
    const fixed = { limit: 1, windowMs: 1000, burst: 1 };
    const first = fixedWindow.decide(undefined, fixed, 0, 1).state;
    expect(reserve([{ algorithm: fixedWindow, state: first, limit: fixed, reserve: false }], 0, 1, 10_000).allowed).toBe(false);
    expect([...RESERVABLE].sort()).toEqual(["gcra", "leaky_bucket", "token_bucket"]);
  });

  it("waits for the latest window, and consumes the non-reserved windows now", () => {
    const perSecond = { limit: 1, windowMs: 1000, burst: 1 };
    const perDay = { limit: 3, windowMs: 86_400_000, burst: 3 };
    let states: unknown[] = [undefined, undefined];
    const slots: number[] = [];
    for (let i = 0; i < 4; i++) {
      const r = reserve(
        [
          { algorithm: gcra, state: states[0], limit: perSecond, reserve: true },
          { algorithm: fixedWindow, state: states[1], limit: perDay, reserve: false },
        ],
        0,
        1,
        5000,
      );
      if (!r.allowed) break;
      slots.push(r.delayMs);
      states = r.steps.map((s) => s.state);
    }
    // The daily window (not reservable) allows 3 now; the per-second one spaces them.
    expect(slots).toEqual([0, 1000, 2000]);
    const day = fixedWindowOracle(perDay);
    for (let i = 0; i < 3; i++) day.commit(0, 1);
    expect(anyFixed.decide(states[1], perDay, 0, 1).decision.allowed).toBe(day.fits(0, 1));
  });

  for (const algorithm of BUCKETS) {
    it(`${algorithm.name}: slots agree with the exact bucket oracle (small numbers)`, () => {
      fc.assert(
        fc.property(smallScenarios({ bucket: true }), maxDelayArb, (s, max) => checkReservations(algorithm, s, max)),
        { seed: SEED, numRuns: 300 },
      );
    });

    it(`${algorithm.name}: slots agree with the exact bucket oracle (production-sized numbers)`, () => {
      const scenarios = largeScenarios({ bucket: true, exactOk: (l) => exactArithmeticOk(l, algorithm.name) });
      fc.assert(
        fc.property(scenarios, maxDelayArb, (s, max) => checkReservations(algorithm, s, max)),
        { seed: SEED, numRuns: 80 },
      );
    });
  }

  it("two reserved windows: every slot respects both limits", () => {
    const limitArb = fc.record({ limit: fc.integer({ min: 1, max: 6 }), windowMs: fc.integer({ min: 1, max: 40 }), burst: fc.integer({ min: 1, max: 4 }) });
    const events = fc.array(fc.record({ gap: fc.integer({ min: 0, max: 30 }), cost: fc.integer({ min: 1, max: 2 }) }), { minLength: 1, maxLength: 30 });
    fc.assert(
      fc.property(limitArb, limitArb, events, maxDelayArb, (a, b, evs, max) => {
        let states: unknown[] = [undefined, undefined];
        let now = 0;
        const slots: [number, number][] = [];
        for (const { gap, cost } of evs) {
          now += gap;
          const r = reserve(
            [
              { algorithm: gcra, state: states[0], limit: a, reserve: true },
              { algorithm: tokenBucket, state: states[1], limit: b, reserve: true },
            ],
            now,
            cost,
            max,
          );
          const waits = [anyGcra.decide(states[0], a, now, cost), anyToken.decide(states[1], b, now, cost)].map((s) => s.decision.retryAfterMs);
          const need = Math.max(...waits);
          ensure(r.allowed === need <= max, () => `allowed ${r.allowed} but the later window needs ${need} (max ${max})`);
          if (!r.allowed) continue;
          ensure(r.delayMs === need, () => `delay ${r.delayMs} is not the later window's retry-after ${need}`);
          states = r.steps.map((s) => s.state);
          slots.push([now + r.delayMs, cost]);
        }
        const schedule = slots.sort((x, y) => x[0] - y[0]);
        bucketBound(a, schedule);
        bucketBound(b, schedule);
      }),
      { seed: SEED, numRuns: 300 },
    );
  });
});
