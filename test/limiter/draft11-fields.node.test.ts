// draft-ietf-httpapi-ratelimit-headers-11 (docs/headers.md): in `RateLimit`,
// `r` is the available quota and `t` the effective window, "the number of
// seconds within which the client can use no more than the available quota".
// For every algorithm, random traces are decided by the algorithm and the
// response's fields are checked against the exact oracles of
// test/algorithms/oracles.ts, which know nothing of src/:
//   r = the largest cost that fits now;
//   t = the least Δ such that a client that spends all of r now could spend
//       one more at now + Δ (sooner than that it can use no more than r),
//       rounded up to whole seconds; a limit that never fits anything is
//       given its window.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { algorithms, BUCKET_ALGORITHMS, exactArithmeticOk } from "../../src/algorithms/index.ts";
import type { Algorithm, AlgorithmName, LimitSpec } from "../../src/algorithms/types.ts";
import { rateLimitHeaders } from "../../src/limiter/respond.ts";
import { summarize } from "../../src/limiter/summarize.ts";
import type { PolicyOutcome } from "../../src/limiter/types.ts";
import { largeScenarios, type Scenario, SEED } from "../algorithms/harness.ts";
import { ORACLES, type Oracle } from "../algorithms/oracles.ts";

const BUCKETS = new Set<AlgorithmName>(BUCKET_ALGORITHMS);

type Hit = readonly [number, number];

/** An oracle that has seen `hits`. */
function replayed(make: (limit: LimitSpec) => Oracle, limit: LimitSpec, hits: readonly Hit[]): Oracle {
  const oracle = make(limit);
  for (const [t, cost] of hits) oracle.commit(t, cost);
  return oracle;
}

/** The available quota: the largest cost that fits at `now` (0 when none does); a smaller cost fits whenever a larger one does. */
function availableQuota(oracle: Oracle, now: number, capacity: number): number {
  let lo = 0;
  let hi = capacity + 1; // never fits
  while (hi - lo > 1) {
    const mid = lo + Math.floor((hi - lo) / 2);
    if (oracle.fits(now, mid)) lo = mid;
    else hi = mid;
  }
  return lo;
}

/**
 * Milliseconds after `now` until one more hit fits, for a client that spent
 * all of `r` at `now`; undefined when none ever does. Every algorithm's
 * availability only grows while nothing is spent, so the search is binary;
 * no algorithm makes a hit wait more than two windows.
 */
function msUntilOneMore(make: (limit: LimitSpec) => Oracle, limit: LimitSpec, hits: readonly Hit[], now: number, r: number): number | undefined {
  const spent = r > 0 ? [...hits, [now, r] as const] : hits;
  const oracle = replayed(make, limit, spent);
  let hi = 2 * limit.windowMs + 1;
  if (!oracle.fits(now + hi, 1)) return undefined;
  let lo = 0; // known not to fit: r was all there was
  while (hi - lo > 1) {
    const mid = lo + Math.floor((hi - lo) / 2);
    if (oracle.fits(now + mid, 1)) hi = mid;
    else lo = mid;
  }
  return hi;
}

const smallScenario = (bucket: boolean) =>
  fc
    .record({
      limit: fc.oneof({ arbitrary: fc.constant(0), weight: 1 }, { arbitrary: fc.integer({ min: 1, max: 6 }), weight: 10 }),
      windowMs: fc.oneof(fc.constantFrom(1_000, 1_500, 60_000), fc.integer({ min: 1, max: 90_000 })),
      burst: fc.oneof({ arbitrary: fc.constant(0), weight: 1 }, { arbitrary: fc.integer({ min: 1, max: 6 }), weight: 10 }),
    })
    .map((l): LimitSpec => (bucket ? l : { ...l, burst: l.limit }))
    .chain((limit) =>
      fc.record({
        limit: fc.constant(limit),
        start: fc.oneof(fc.constant(1_700_000_000_000), fc.integer({ min: 0, max: 2 ** 41 })),
        events: fc.array(
          fc.record({
            gap: fc.oneof(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 3 * limit.windowMs })),
            cost: fc.oneof({ arbitrary: fc.constant(1), weight: 3 }, { arbitrary: fc.integer({ min: 0, max: 4 }), weight: 2 }),
          }),
          { minLength: 1, maxLength: 15 },
        ),
      }),
    );

/** The draft-11 `RateLimit` field of a response to one decision of `algorithm`. */
function serviceLimit(policy: PolicyOutcome): { r: number; t: number } {
  const field = new Map(rateLimitHeaders(summarize([policy]), "draft-11")).get("RateLimit") ?? "";
  const match = /^"p";r=(\d+);t=(\d+)$/.exec(field);
  if (!match) throw new Error(`not a single draft-11 service limit item: ${field}`);
  return { r: Number(match[1]), t: Number(match[2]) };
}

/** Drives `name` through `scenario`, checking r and t after every request. */
function checkScenario(name: AlgorithmName, { limit, start, events }: Scenario): void {
  const algorithm = algorithms[name] as Algorithm<unknown>;
  const make = ORACLES[name];
  const capacity = BUCKETS.has(name) ? limit.burst : limit.limit;
  const hits: Hit[] = [];
  let state: unknown;
  let now = start;
  for (const { gap, cost } of events) {
    now += gap;
    const step = algorithm.decide(state, limit, now, cost);
    state = step.state;
    if (step.decision.allowed && cost > 0) hits.push([now, cost]);
    const policy = { name: "p", windowMs: limit.windowMs, shadow: false, decision: step.decision, descriptor: [] } as unknown as PolicyOutcome;
    const { r, t } = serviceLimit(policy);

    const expectedR = limit.limit === 0 ? 0 : availableQuota(replayed(make, limit, hits), now, capacity);
    const wait = limit.limit === 0 ? undefined : msUntilOneMore(make, limit, hits, now, expectedR);
    expect(r).toBe(expectedR);
    expect(step.decision.effectiveWindowMs).toBe(wait ?? Infinity);
    expect(t).toBe(Math.ceil((wait ?? limit.windowMs) / 1000));
  }
}

describe("draft-11 RateLimit r and t, against the oracles", () => {
  for (const name of Object.keys(ORACLES) as AlgorithmName[]) {
    const bucket = BUCKETS.has(name);
    it(`${name}: r is the available quota, t the effective window`, () => {
      fc.assert(
        fc.property(smallScenario(bucket), (scenario) => checkScenario(name, scenario)),
        { seed: SEED, numRuns: 150 },
      );
    });

    it(`${name}: the same with production-sized limits and windows`, () => {
      const exactOk = (l: LimitSpec) => exactArithmeticOk(l, name);
      fc.assert(
        fc.property(largeScenarios({ bucket, exactOk }), (scenario) => checkScenario(name, scenario)),
        { seed: SEED, numRuns: 40 },
      );
    });
  }
});
