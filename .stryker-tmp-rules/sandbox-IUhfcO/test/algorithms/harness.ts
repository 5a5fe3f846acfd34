/**
 * The property test every algorithm runs: random request traces decided by
 * the algorithm and by an exact oracle side by side, checking each decision
 * in full (allow/deny, remaining, reset, retry-after) plus the contract's
 * state rules (rejections consume nothing, JSON round trips, idleAt).
 *
 * Checks use a plain `ensure` rather than `expect`: a run makes ~10^5 of
 * them, and fast-check reports the failing trace, seed and path either way.
 */
// @ts-nocheck

import fc from "fast-check";
import type { Algorithm, Decision, LimitSpec } from "../../src/algorithms/types.ts";
import type { Oracle } from "./oracles.ts";

/**
 * Fixed so CI is deterministic; fast-check prints the seed and path of any
 * failure. Set FC_SEED (where the runtime exposes process.env) to explore.
 *
 * @example
 * fc.assert(property, { seed: SEED, numRuns: 300 });
 */
export const SEED = Number((globalThis as { process?: { env?: Record<string, string> } }).process?.env?.FC_SEED) || 0x5eed_f1d;

/** A request: `gap` ms after the previous one, of `cost` hits. */
export interface Event {
  readonly gap: number;
  readonly cost: number;
}

/** A limit, a start instant and the requests that follow it. */
export interface Scenario {
  readonly limit: LimitSpec;
  readonly start: number;
  readonly events: readonly Event[];
}

/** What a property test needs to know about one algorithm. */
export interface Subject<S> {
  readonly algorithm: Algorithm<S>;
  readonly oracle: (limit: LimitSpec) => Oracle;
  /** The largest cost that can ever fit (burst for buckets, limit for windows). */
  readonly capacity: (limit: LimitSpec) => number;
  /** Throws unless the allowed hits respect the algorithm's bound over time. */
  readonly bound: (limit: LimitSpec, hits: readonly (readonly [number, number])[]) => void;
}

/**
 * Throws `message` unless `condition` holds.
 *
 * @example
 * ensure(d.retryAfterMs === 0, () => `allowed with a wait: ${JSON.stringify(d)}`);
 */
export function ensure(condition: boolean, message: () => string): void {
  if (!condition) throw new Error(message());
}

/**
 * Field-by-field equality of two decisions (Infinity included).
 *
 * @example
 * sameDecision(a.decide(s, l, t, 1).decision, a.decide(undefined, l, t, 1).decision);
 */
export function sameDecision(a: Decision, b: Decision): boolean {
  return (
    a.allowed === b.allowed &&
    a.limit === b.limit &&
    a.remaining === b.remaining &&
    a.resetAfterMs === b.resetAfterMs &&
    a.retryAfterMs === b.retryAfterMs &&
    a.effectiveWindowMs === b.effectiveWindowMs
  );
}

const show = (x: unknown) => JSON.stringify(x, (_, v) => (v === Infinity ? "Infinity" : v));

/** Start instants: the epoch, a realistic now, and anything up to 2^41 ms. */
const startArb = fc.oneof(fc.constant(0), fc.constant(1_700_000_000_000), fc.integer({ min: 0, max: 2 ** 41 }));

/**
 * Scenarios with small numbers (so the oracle's hand arithmetic is easy to
 * trust) and gaps from 0 (same ms) through a few windows to very long idles.
 *
 * @example
 * runProperty(subject, smallScenarios({ bucket: true }), 400);
 */
export function smallScenarios(opts: { bucket: boolean }): fc.Arbitrary<Scenario> {
  const limitArb = fc
    .record({
      limit: fc.oneof({ arbitrary: fc.constant(0), weight: 1 }, { arbitrary: fc.integer({ min: 1, max: 6 }), weight: 12 }),
      windowMs: fc.integer({ min: 1, max: 40 }),
      burst: fc.oneof({ arbitrary: fc.constant(0), weight: 1 }, { arbitrary: fc.integer({ min: 1, max: 6 }), weight: 8 }),
    })
    .map((l) => (opts.bucket ? l : { ...l, burst: l.limit }));
  const event = fc.record({
    gap: fc.oneof(
      { arbitrary: fc.constant(0), weight: 3 },
      { arbitrary: fc.integer({ min: 0, max: 5 }), weight: 5 },
      { arbitrary: fc.integer({ min: 0, max: 90 }), weight: 4 },
      { arbitrary: fc.integer({ min: 0, max: 10_000_000 }), weight: 1 },
    ),
    cost: fc.oneof({ arbitrary: fc.constant(1), weight: 6 }, { arbitrary: fc.integer({ min: 0, max: 3 }), weight: 4 }),
  });
  return fc.record({ limit: limitArb, start: startArb, events: fc.array(event, { minLength: 1, maxLength: 40, size: "max" }) });
}

/**
 * Scenarios with production-sized numbers (limits to 1e9, windows to three
 * years) that pass `exactOk`, costs up to the capacity and gaps scaled to the
 * window, to exercise the reduced-rate and BigInt paths.
 *
 * @example
 * runProperty(subject, largeScenarios({ bucket: true, exactOk: (l) => exactArithmeticOk(l, "gcra") }), 100);
 */
export function largeScenarios(opts: { bucket: boolean; exactOk: (l: LimitSpec) => boolean }): fc.Arbitrary<Scenario> {
  const units = [1_000, 60_000, 3_600_000, 86_400_000, 2_592_000_000, 31_536_000_000];
  const limitArb = fc
    .record({
      limit: fc.oneof(fc.integer({ min: 1, max: 1_000 }), fc.integer({ min: 1, max: 1_000_000_000 }), fc.constantFrom(1e6, 1e9, 999_999_937)),
      windowMs: fc.oneof(fc.constantFrom(...units), fc.integer({ min: 1, max: 3 * 31_536_000_000 })),
      burstPick: fc.oneof(fc.constant(-1), fc.integer({ min: 0, max: 10 }), fc.integer({ min: 0, max: 1_000_000_000 })),
    })
    // Burst defaults to the limit in rules.json, so that case gets a third.
    .map(({ limit, windowMs, burstPick }) => ({ limit, windowMs, burst: !opts.bucket || burstPick < 0 ? limit : burstPick }))
    .filter(opts.exactOk);
  return limitArb.chain((limit) => {
    const cap = opts.bucket ? limit.burst : limit.limit;
    const cost = fc.oneof(
      fc.constantFrom(0, 1, 2, cap, cap + 1),
      fc.integer({ min: 0, max: cap }),
      fc.integer({ min: Math.floor(cap / 4), max: Math.ceil(cap / 2) }),
    );
    const W = limit.windowMs;
    const gap = fc.oneof(
      fc.integer({ min: 0, max: 3 }),
      fc.integer({ min: 0, max: Math.max(1, Math.ceil(W / Math.max(1, limit.limit))) * 2 }),
      fc.integer({ min: 0, max: 3 * W }),
    );
    return fc.record({
      limit: fc.constant(limit),
      start: startArb,
      events: fc.array(fc.record({ gap, cost }), { minLength: 1, maxLength: 25, size: "max" }),
    });
  });
}

/**
 * Runs one scenario against the oracle; throws on the first discrepancy.
 *
 * @example
 * checkScenario(subject, { limit: { limit: 1, windowMs: 10, burst: 1 }, start: 0, events: [{ gap: 0, cost: 1 }] });
 */
export function checkScenario<S>(subject: Subject<S>, { limit, start, events }: Scenario): void {
  const { algorithm: alg } = subject;
  const oracle = subject.oracle(limit);
  const cap = subject.capacity(limit);
  const hits: [number, number][] = [];
  let state: S | undefined;
  let now = start;
  for (const [index, { gap, cost }] of events.entries()) {
    now += gap;
    const before = state;
    const { state: after, decision: d } = alg.decide(before, limit, now, cost);
    const where = () => `request #${index} at ${now} cost ${cost}, state ${show(before)} -> ${show(after)}, decision ${show(d)}`;

    // Full agreement with the oracle.
    const impossible = limit.limit === 0 || cost > cap;
    ensure(d.allowed === oracle.fits(now, cost), () => `allowed disagrees with oracle: ${where()}`);
    ensure(d.limit === limit.limit, () => `limit field: ${where()}`);
    if (d.allowed) {
      ensure(d.retryAfterMs === 0, () => `allowed with retryAfterMs ≠ 0: ${where()}`);
      if (cost > 0) {
        oracle.commit(now, cost);
        hits.push([now, cost]);
      }
    } else if (impossible) {
      ensure(d.retryAfterMs === Infinity, () => `impossible request without infinite retry: ${where()}`);
    } else {
      const R = d.retryAfterMs;
      ensure(Number.isSafeInteger(R) && R >= 1, () => `retryAfterMs not a positive integer: ${where()}`);
      ensure(oracle.fits(now + R, cost) && !oracle.fits(now + R - 1, cost), () => `retryAfterMs not exact per oracle: ${where()}`);
      ensure(alg.decide(after, limit, now + R, cost).decision.allowed, () => `rejected again at now + retryAfterMs: ${where()}`);
      ensure(!alg.decide(after, limit, now + R - 1, cost).decision.allowed, () => `allowed 1 ms before retryAfterMs: ${where()}`);
    }
    if (limit.limit === 0) ensure(d.remaining === 0 && d.resetAfterMs === 0, () => `limit 0 reports quota: ${where()}`);
    else {
      ensure(d.remaining === 0 || oracle.fits(now, d.remaining), () => `remaining too high: ${where()}`);
      ensure(!oracle.fits(now, d.remaining + 1), () => `remaining too low: ${where()}`);
    }
    const reset = d.resetAfterMs;
    ensure(Number.isSafeInteger(reset) && reset >= 0 && oracle.quiet(now + reset), () => `not reset after resetAfterMs: ${where()}`);
    ensure(reset === 0 || !oracle.quiet(now + reset - 1), () => `resetAfterMs later than needed: ${where()}`);

    // Consuming nothing hands back the very input state, so callers can skip
    // a write; either way the state must answer exactly as before.
    if (before !== undefined && (!d.allowed || cost === 0)) {
      ensure(after === before, () => `state replaced though nothing was consumed: ${where()}`);
    }
    if (!d.allowed || cost === 0) {
      for (const t of [now, now + 1, now + limit.windowMs, now + 3 * limit.windowMs + 1]) {
        for (const c of [0, 1, cost]) {
          const a = alg.decide(after, limit, t, c).decision;
          const b = before === undefined ? alg.decide(undefined, limit, t, c).decision : alg.decide(before, limit, t, c).decision;
          ensure(sameDecision(a, b), () => `state changed by a request that consumed nothing (probe ${t}, ${c}): ${where()}`);
        }
      }
    }

    // JSON round trip: the revived state decides identically, to the same next state.
    if (before !== undefined) {
      const revived = alg.decide(JSON.parse(JSON.stringify(before)) as S, limit, now, cost);
      ensure(sameDecision(revived.decision, d), () => `JSON-revived state decides differently: ${where()}`);
      ensure(JSON.stringify(revived.state) === JSON.stringify(after), () => `JSON-revived state steps differently: ${where()}`);
    }
    ensure(JSON.stringify(after).length < 2_000, () => `state not compact: ${where()}`);

    // idleAt: from then on the state is as good as none; one ms before, it is not.
    const idle = alg.idleAt(after, limit);
    ensure(Number.isSafeInteger(idle), () => `idleAt ${idle} not an integer: ${where()}`);
    const from = Math.max(idle, now);
    for (const t of [from, from + 1, from + limit.windowMs + 7]) {
      for (const c of [0, 1, 2, cap]) {
        const kept = alg.decide(after, limit, t, c);
        const fresh = alg.decide(undefined, limit, t, c);
        ensure(sameDecision(kept.decision, fresh.decision), () => `idleAt ${idle} too early (probe ${t}, ${c}): ${where()}`);
        if (kept.decision.allowed && c > 0) {
          ensure(JSON.stringify(kept.state) === JSON.stringify(fresh.state), () => `idle state steps differently at ${t}: ${where()}`);
        }
      }
    }
    if (idle - 1 >= now) {
      ensure(alg.decide(after, limit, idle - 1, 0).decision.resetAfterMs > 0, () => `idleAt ${idle} later than needed: ${where()}`);
    }
    state = after;
  }
  subject.bound(limit, hits);
}

/**
 * Asserts `checkScenario` for `numRuns` scenarios from `arb`, with the fixed
 * seed.
 *
 * @example
 * runProperty(subject, smallScenarios({ bucket: true }), 400);
 */
export function runProperty<S>(subject: Subject<S>, arb: fc.Arbitrary<Scenario>, numRuns: number): void {
  fc.assert(
    fc.property(arb, (scenario) => checkScenario(subject, scenario)),
    { seed: SEED, numRuns },
  );
}

/**
 * Bucket bound: over any interval [t_i, t_j] the allowed hits total at most
 * burst + floor((t_j − t_i) × limit / windowMs).
 *
 * @example
 * bucketBound({ limit: 1, windowMs: 10, burst: 2 }, [[0, 2], [10, 1]]); // ok
 */
export function bucketBound(limit: LimitSpec, hits: readonly (readonly [number, number])[]): void {
  for (let i = 0; i < hits.length; i++) {
    let total = 0n;
    for (let j = i; j < hits.length; j++) {
      total += BigInt(hits[j][1]);
      const allowance = BigInt(limit.burst) + (BigInt(hits[j][0] - hits[i][0]) * BigInt(limit.limit)) / BigInt(limit.windowMs);
      ensure(total <= allowance, () => `bucket bound broken between ${hits[i][0]} and ${hits[j][0]}: ${total} > ${allowance}`);
    }
  }
}

/**
 * Sum of hits in every window `(t − span, t]` ending at a hit, at most `max`.
 *
 * @example
 * slidingBound([[0, 1], [5, 1]], 10, 2); // ok
 */
export function slidingBound(hits: readonly (readonly [number, number])[], span: number, max: number): void {
  for (const [end] of hits) {
    let total = 0;
    for (const [t, c] of hits) if (t > end - span && t <= end) total += c;
    ensure(total <= max, () => `${total} hits in the ${span} ms ending at ${end}, more than ${max}`);
  }
}
