/**
 * The counter object's core (src/durable/counters/counter-core.ts) in plain Node, on
 * the clock each test gives it, over windows kept in memory
 * (test/support/plain-counters.ts): the order in which a call meets the
 * relay, penalties, slots, leases, windows and the hot-key meter. The same
 * core runs inside every real CounterObject (test/durable/*.test.ts through
 * workerd).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { getAlgorithm } from "../../src/algorithms/index.ts";
import type { AlgorithmName } from "../../src/algorithms/types.ts";
import { HOT_HITS_PER_S } from "../../src/durable/counters/hot-keys.ts";
import type { RegionCall } from "../../src/durable/counters/counter-core.ts";
import type { CounterCall, CounterVerdict, LimitCall } from "../../src/stored/wire-calls.ts";
import { plainObject } from "../support/plain-counters.ts";

const T0 = 1_000_000;
const ALGORITHMS: AlgorithmName[] = ["fixed_window", "sliding_window_log", "sliding_window_counter", "token_bucket", "leaky_bucket", "gcra"];
const window = (limit: number, windowMs = 60_000, algorithm: AlgorithmName = "fixed_window", id = `${algorithm}-${limit}-${windowMs}`): LimitCall => ({
  id,
  algorithm,
  limit,
  windowMs,
  burst: limit,
});
const decided = (verdicts: CounterVerdict[] | Promise<CounterVerdict[]>): CounterVerdict[] => {
  if (verdicts instanceof Promise) throw new Error("no call here waits for a home");
  return verdicts;
};
const one = (object: ReturnType<typeof plainObject>, call: CounterCall, now: number) => decided(object.core.decide([call], now))[0];

const limitArb = fc.record({
  algorithm: fc.constantFrom(...ALGORITHMS),
  limit: fc.integer({ min: 1, max: 6 }),
  windowMs: fc.constantFrom(1_000, 10_000, 60_000),
});
const callsArb = fc.record({
  limits: fc.uniqueArray(limitArb, { minLength: 1, maxLength: 3, selector: (l) => `${l.algorithm}/${l.limit}/${l.windowMs}` }),
  steps: fc.array(fc.record({ key: fc.constantFrom("a", "b"), cost: fc.integer({ min: 0, max: 3 }), gap: fc.integer({ min: 0, max: 2_000 }) }), {
    minLength: 1,
    maxLength: 40,
  }),
});

describe("windows: all or nothing, exactly as each algorithm says", () => {
  it("a call is allowed iff every window allows it; a refused call changes no window (property, every algorithm)", () => {
    fc.assert(
      fc.property(callsArb, ({ limits, steps }) => {
        const calls = limits.map((l) => window(l.limit, l.windowMs, l.algorithm));
        const object = plainObject();
        // The oracle: each window by its algorithm alone, on states of its own.
        const oracle = new Map<string, unknown>();
        let now = T0;
        for (const { key, cost, gap } of steps) {
          now += gap;
          const stepsNow = calls.map((limit) => getAlgorithm(limit.algorithm).decide(oracle.get(`${key}/${limit.id}`), limit, now, cost));
          const allowed = stepsNow.every((step) => step.decision.allowed);
          const before = new Map(object.states);
          const verdict = one(object, { key, cost, limits: calls }, now);
          expect(verdict.allowed).toBe(allowed);
          if (!allowed) expect(object.states).toEqual(before);
          else if (cost > 0) for (const [i, limit] of calls.entries()) oracle.set(`${key}/${limit.id}`, stepsNow[i].state);
          calls.forEach((limit, i) => {
            const expected =
              allowed || !stepsNow[i].decision.allowed
                ? stepsNow[i].decision
                : getAlgorithm(limit.algorithm).decide(oracle.get(`${key}/${limit.id}`), limit, now, 0).decision;
            expect(verdict.decisions[i]).toEqual(expected);
          });
        }
      }),
      { numRuns: 150 },
    );
  });

  it("a batch is decided as its calls one by one, in order (property)", () => {
    fc.assert(
      fc.property(callsArb, ({ limits, steps }) => {
        const calls = limits.map((l) => window(l.limit, l.windowMs, l.algorithm));
        const batched = plainObject();
        const single = plainObject();
        const batch = steps.map(({ key, cost }) => ({ key, cost, limits: calls }));
        const together = decided(batched.core.decide(batch, T0));
        const apart = batch.map((call) => one(single, call, T0));
        expect(together).toEqual(apart);
        expect(batched.states).toEqual(single.states);
      }),
      { numRuns: 100 },
    );
  });

  it("remembers the earliest time a committed window goes idle", () => {
    const object = plainObject();
    expect(object.core.earliestIdleAt).toBe(Infinity);
    one(object, { key: "k", cost: 1, limits: [window(5, 60_000)] }, T0);
    const minute = object.core.earliestIdleAt;
    one(object, { key: "k", cost: 1, limits: [window(5, 10_000)] }, T0);
    expect(object.core.earliestIdleAt).toBeLessThan(minute);
    // A peek commits nothing.
    const peeked = plainObject();
    peeked.core.peek({ key: "k", cost: 3, limits: [window(5)] }, T0);
    expect(peeked.core.earliestIdleAt).toBe(Infinity);
    expect(peeked.states.size).toBe(0);
  });
});

describe("leases: quota leased to isolates counts as taken", () => {
  it("direct hits plus hits spent from leases never pass the limit (property)", () => {
    const limit = window(20, 3_600_000);
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.record({ direct: fc.integer({ min: 1, max: 3 }) }),
            fc.record({ holder: fc.constantFrom("i1", "i2", "i3"), want: fc.integer({ min: 0, max: 8 }), spend: fc.double({ min: 0, max: 1, noNaN: true }) }),
          ),
          {
            maxLength: 60,
          },
        ),
        (steps) => {
          const object = plainObject();
          const held = new Map<string, number>();
          let admitted = 0;
          let now = T0;
          for (const step of steps) {
            now += 10;
            if ("direct" in step) {
              if (one(object, { key: "k", cost: step.direct, limits: [limit] }, now).allowed) admitted += step.direct;
              continue;
            }
            // The isolate spends part of what it holds, reports it, and asks for more.
            const spent = Math.floor((held.get(step.holder) ?? 0) * step.spend);
            admitted += spent;
            const verdict = one(
              object,
              { kind: "absorb", key: "k", cost: spent, limits: [limit], lease: { holder: step.holder, want: step.want, ttlMs: 5_000 } },
              now,
            );
            held.set(step.holder, verdict.reserved ?? 0);
          }
          // Every lease still out spent whole, the worst case.
          for (const reserved of held.values()) admitted += reserved;
          expect(admitted).toBeLessThanOrEqual(limit.limit);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("a plain hit the leases alone refuse is provisional, told to retry by the lease's end; a restart ends the leases", () => {
    const object = plainObject();
    const limit = window(10, 3_600_000);
    const lease = one(object, { kind: "absorb", key: "k", cost: 0, limits: [limit], lease: { holder: "i1", want: 4, ttlMs: 2_000 } }, T0);
    expect(lease.reserved).toBe(4);
    for (let i = 0; i < 6; i++) expect(one(object, { key: "k", cost: 1, limits: [limit] }, T0).allowed).toBe(true);
    const refused = one(object, { key: "k", cost: 1, limits: [limit] }, T0 + 500);
    expect(refused).toMatchObject({ allowed: false, provisional: true });
    expect(refused.decisions[0].retryAfterMs).toBe(1_500);
    object.restart();
    expect(one(object, { key: "k", cost: 1, limits: [limit] }, T0 + 500).allowed).toBe(true);
  });
});

describe("penalties come before the windows", () => {
  const penalized = { ...window(2, 1_000), penalty: { blockMs: 10_000, escalate: 2, maxBlockMs: 40_000 } };

  it("a refusal starts a block; a blocked key consumes nothing and each hit escalates the block", () => {
    const object = plainObject();
    const call = { key: "k", cost: 1, limits: [penalized] };
    expect(one(object, call, T0).allowed).toBe(true);
    expect(one(object, call, T0).allowed).toBe(true);
    const first = one(object, call, T0 + 1);
    expect(first.allowed).toBe(false);
    expect(first.decisions[0].retryAfterMs).toBe(10_000);
    expect(object.core.earliestIdleAt).toBeLessThanOrEqual(T0 + 1 + 10_000);
    // The window has room again, but the block (escalated by the hit) still holds.
    const before = new Map(object.states);
    const held = one(object, call, T0 + 9_000);
    expect(held.allowed).toBe(false);
    expect(held.decisions[0].retryAfterMs).toBe(20_001 - 9_000);
    expect(object.states).toEqual(before);
    // A peek reports the block and changes nothing.
    expect(object.core.peek(call, T0 + 9_000).decisions[0].retryAfterMs).toBe(20_001 - 9_000);
    expect(one(object, call, T0 + 20_001).allowed).toBe(true);
  });
});

describe("slots, reservations and refunds", () => {
  const slots = (n: number): LimitCall => ({ id: `slots-${n}`, algorithm: "fixed_window", limit: n, windowMs: 1_000, burst: n, concurrency: true });

  it("takes slots all or nothing with the rate windows, and frees them on release", () => {
    const object = plainObject();
    const limits = [slots(2), window(3)];
    const take = (holder: string, now = T0) => one(object, { key: "k", cost: 1, limits, slot: { holder, leaseMs: 60_000 } }, now);
    expect(take("a").allowed).toBe(true);
    expect(take("b").allowed).toBe(true);
    const refused = take("c");
    expect(refused.allowed).toBe(false);
    // The rate window was not charged for the refused call: one hit left of 3.
    expect(refused.decisions[1].remaining).toBe(1);
    expect(one(object, { kind: "release", key: "k", cost: 0, limits, slot: { holder: "a", leaseMs: 0 } }, T0)).toEqual({ allowed: true, decisions: [] });
    expect(take("c").allowed).toBe(true);
    // Now the rate window refuses: no slot is taken either.
    expect(one(object, { kind: "release", key: "k", cost: 0, limits, slot: { holder: "b", leaseMs: 0 } }, T0).allowed).toBe(true);
    expect(take("d").allowed).toBe(false);
    expect(one(object, { kind: "renew", key: "k", cost: 0, limits, slot: { holder: "d", leaseMs: 60_000 } }, T0).allowed).toBe(false);
  });

  it("stamps refundable hits with the time they were taken, and a refund gives them back", () => {
    const object = plainObject();
    const limits = [window(2)];
    const taken = one(object, { key: "k", cost: 2, limits, refundable: true }, T0);
    expect(taken).toMatchObject({ allowed: true, chargedAt: T0 });
    expect(one(object, { key: "k", cost: 1, limits }, T0 + 1).allowed).toBe(false);
    const back = one(object, { kind: "refund", key: "k", cost: 2, limits, chargedAt: T0 }, T0 + 2);
    expect(back.decisions[0].remaining).toBe(2);
    // A refund on a counter never charged writes nothing.
    one(object, { kind: "refund", key: "other", cost: 1, limits, chargedAt: T0 }, T0 + 2);
    expect([...object.states.keys()].some((id) => id.startsWith("other"))).toBe(false);
  });

  it("reserves the earliest slot of a bucket within max delay", () => {
    const object = plainObject();
    const bucket: LimitCall = { ...window(1, 1_000, "gcra"), reserve: true };
    expect(one(object, { kind: "reserve", key: "k", cost: 1, limits: [bucket], maxDelayMs: 5_000 }, T0)).toMatchObject({ allowed: true, delayMs: 0 });
    expect(one(object, { kind: "reserve", key: "k", cost: 1, limits: [bucket], maxDelayMs: 5_000 }, T0)).toMatchObject({ allowed: true, delayMs: 1_000 });
    expect(one(object, { kind: "reserve", key: "k", cost: 1, limits: [bucket], maxDelayMs: 500 }, T0).allowed).toBe(false);
  });
});

describe("hot keys and the relay", () => {
  it("hints a counter hot at this object, and never a refundable or strict one", () => {
    const object = plainObject();
    const limits = [window(100_000)];
    let last: CounterVerdict | undefined;
    for (let i = 0; i < HOT_HITS_PER_S; i++) last = one(object, { key: "k", cost: 1, limits }, T0);
    expect(last?.hot?.syncMs).toBeGreaterThan(0);
    expect(one(object, { key: "k", cost: 1, limits, refundable: true }, T0).hot).toBeUndefined();
    const strict = [{ ...window(100_000), strict: true }];
    for (let i = 0; i < HOT_HITS_PER_S; i++) last = one(object, { key: "s", cost: 1, limits: strict }, T0);
    expect(last?.hot).toBeUndefined();
  });

  it("hands a relayed hit to the relay only as a region's copy; otherwise decides it here", async () => {
    const relayed: RegionCall[] = [];
    const object = plainObject({
      relay: async (call) => {
        relayed.push(call);
        return { allowed: true, decisions: [] };
      },
    });
    const limits = [window(1)];
    const home = object.core.decide([{ kind: "relay", object: "api/shard/3", key: "k", cost: 1, limits }], T0);
    expect(decided(home)[0].allowed).toBe(true);
    const copy = object.core.decide(
      [
        { kind: "relay", object: "api/shard/3@weur", key: "k", cost: 1, limits },
        { key: "k", cost: 1, limits },
      ],
      T0,
    );
    expect(copy).toBeInstanceOf(Promise);
    expect((await copy).map((v) => v.allowed)).toEqual([true, false]);
    expect(relayed.map((call) => call.object)).toEqual(["api/shard/3@weur"]);
    // Without a relay (the plain objects of tests), a region's copy decides here.
    expect(decided(plainObject().core.decide([{ kind: "relay", object: "x@weur", key: "k", cost: 1, limits }], T0))[0].allowed).toBe(true);
  });

  it("refuses a call of a kind it does not know", () => {
    expect(() => plainObject().core.decide([{ kind: "later", key: "k", cost: 1, limits: [] } as unknown as CounterCall], T0)).toThrow(
      /unknown counter call kind "later"/,
    );
  });
});
