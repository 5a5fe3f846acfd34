/**
 * How an object takes a pre-counting sync and decides beside leases
 * (src/durable/counters/leases/precount-sync.ts), on counters the real algorithms keep, at
 * chosen instants. The counter here is what the object lends the module
 * (`CounterAccess`): each window's state decided by its algorithm, nothing
 * else. A year-long fixed window keeps the arithmetic exact: remaining is
 * the limit less what was taken. The object's own tests
 * (test/durable/leases.test.ts) run the same paths through real storage;
 * this file pins the exact shares, clamps and retry times (mutation testing,
 * docs/testing.md).
 */
import { describe, expect, it } from "vitest";
import { getAlgorithm } from "../../src/algorithms/index.ts";
import { LeaseBook } from "../../src/durable/counters/leases/leases.ts";
import {
  absorb,
  type CounterAccess,
  decideBesideLeases,
  leasedOn,
  leaseId,
  MAX_LEASE_TTL_MS,
  mostThatFit,
} from "../../src/durable/counters/leases/precount-sync.ts";
import type { AbsorbCall, CounterCall, LimitCall } from "../../src/stored/wire-calls.ts";

const YEAR = 31_536_000_000;
const window = (limit: number, id = `fw-${limit}`): LimitCall => ({ id, algorithm: "fixed_window", limit, windowMs: YEAR, burst: limit });

/** The object's counters at one instant, as `CounterObject.access` lends them. */
function counters(now: () => number): CounterAccess & { taken: number[] } {
  const states = new Map<string, unknown>();
  const step = (call: CounterCall, limit: LimitCall, cost: number) =>
    getAlgorithm(limit.algorithm).decide(states.get(`${call.key}\u0001${limit.id}`), limit, now(), cost);
  const taken: number[] = [];
  return {
    taken,
    fits: (call, cost) => call.limits.every((limit) => step(call, limit, cost).decision.allowed),
    take: (call, cost) => {
      taken.push(cost);
      for (const limit of call.limits) states.set(`${call.key}\u0001${limit.id}`, step(call, limit, cost).state);
    },
    peek: (call) => call.limits.map((limit) => step(call, limit, 0).decision),
  };
}

const sync = (limits: LimitCall[], holder: string, spent: number, want: number, extra: { release?: number; ttlMs?: number } = {}): AbsorbCall => ({
  key: "k",
  limits,
  cost: spent,
  kind: "absorb",
  lease: { holder, want, release: extra.release, ttlMs: extra.ttlMs ?? 5_000 },
});

describe("mostThatFit", () => {
  it("finds the largest k ≤ n that fits, for every n and every bound up to 40", () => {
    for (let n = -2; n <= 40; n++) {
      for (let bound = 0; bound <= 42; bound++) {
        let calls = 0;
        const found = mostThatFit(n, (k) => {
          calls += 1;
          expect(k).toBeGreaterThan(0);
          expect(k).toBeLessThanOrEqual(n);
          return k <= bound;
        });
        expect(found).toBe(Math.max(0, Math.min(n, bound)));
        // By bisection: one look at n, then about log2(n) more, not one per hit.
        expect(calls).toBeLessThanOrEqual(n <= 0 ? 0 : 1 + Math.ceil(Math.log2(n)));
      }
    }
  });
});

describe("leaseId", () => {
  it("names the counter key and every window, apart", () => {
    expect(leaseId({ key: "k", cost: 1, limits: [window(5, "a"), window(9, "b")] })).toBe("k\u0001a\u0001b");
    expect(leaseId({ key: "k", cost: 1, limits: [] })).toBe("k");
  });
});

describe("leasedOn", () => {
  it("looks at nothing while no lease is out", () => {
    const leases = new LeaseBook();
    const access = counters(() => 0);
    const call: CounterCall = { key: "k", cost: 1, limits: [window(10)] };
    expect(leasedOn(call, leases, { ...access, fits: () => expect.unreachable(), take: () => expect.unreachable() }, 0)).toBe(0);
  });

  it("charges expired leases whole, once, and returns what is still out", () => {
    const leases = new LeaseBook();
    const access = counters(() => 0);
    const limits = [window(10)];
    const call: CounterCall = { key: "k", cost: 1, limits };
    leases.grant(leaseId(call), "a", 4, 100, 0);
    leases.grant(leaseId(call), "b", 3, 500, 0);
    expect(leasedOn(call, leases, access, 99)).toBe(7);
    expect(access.taken).toEqual([]);
    expect(leasedOn(call, leases, access, 100)).toBe(3);
    expect(access.taken).toEqual([4]);
    expect(access.peek(call)[0].remaining).toBe(6);
    expect(leasedOn(call, leases, access, 100)).toBe(3);
    expect(access.taken).toEqual([4]);
  });
});

describe("absorb", () => {
  it("without a lease: takes the reported hits that fit beside the leases out, and answers the counter as charged", () => {
    const leases = new LeaseBook();
    const access = counters(() => 0);
    const limits = [window(10)];
    absorb(sync(limits, "a", 0, 6), leases, access, 0);
    const verdict = absorb({ key: "k", limits, cost: 7, kind: "absorb" }, leases, access, 0);
    expect(verdict).toEqual({ allowed: true, decisions: access.peek({ key: "k", limits, cost: 0 }), accepted: 4 });
    expect(verdict.decisions[0].remaining).toBe(6);
    // Nothing fits: nothing is taken.
    expect(absorb({ key: "k", limits, cost: 3, kind: "absorb" }, leases, access, 0).accepted).toBe(0);
    expect(access.taken).toEqual([4]);
  });

  it("leases a new holder up to what it wants, and a fair share of what is free beside the other holders", () => {
    const leases = new LeaseBook();
    const access = counters(() => 0);
    const limits = [window(100)];
    expect(absorb(sync(limits, "a", 0, 30), leases, access, 0)).toMatchObject({ accepted: 0, reserved: 30 });
    // 70 free, one holder besides b: b gets ⌈70 / 2⌉ = 35.
    expect(absorb(sync(limits, "b", 0, 1_000), leases, access, 0).reserved).toBe(35);
    // 35 free, two holders besides c: ⌈35 / 3⌉ = 12.
    expect(absorb(sync(limits, "c", 0, 1_000), leases, access, 0).reserved).toBe(12);
    // a already holds 30 and asks for 50: it needs 20, and counts as one of the holders sharing the 23 free (⌈23 / 3⌉ = 8).
    expect(absorb(sync(limits, "a", 0, 50), leases, access, 0).reserved).toBe(38);
    // Nothing is charged by leasing; the answer is the counter as charged.
    expect(access.taken).toEqual([]);
    expect(absorb(sync(limits, "a", 0, 38), leases, access, 0).decisions[0].remaining).toBe(100);
    expect(leases.total(leaseId({ key: "k", limits, cost: 0 }))).toBe(38 + 35 + 12);
  });

  it("asks for a fraction of a hit as the whole hits below it", () => {
    const leases = new LeaseBook();
    const access = counters(() => 0);
    expect(absorb(sync([window(100)], "a", 0, 4.9), leases, access, 0).reserved).toBe(4);
  });

  it("charges the hits a lease covered, then those it did not while they fit beside the others' leases", () => {
    const leases = new LeaseBook();
    const access = counters(() => 0);
    const limits = [window(20)];
    absorb(sync(limits, "a", 0, 5), leases, access, 0);
    absorb(sync(limits, "b", 0, 1_000), leases, access, 0);
    expect(leases.reservedBy(leaseId({ key: "k", limits, cost: 0 }), "b")).toBe(8);
    // a spent 9 on a lease of 5: 5 covered, 4 more fit beside b's 8 (20 − 5 − 8 = 7 free), all 9 taken.
    const report = absorb(sync(limits, "a", 9, 0), leases, access, 0);
    expect(report).toMatchObject({ accepted: 9, reserved: 0 });
    expect(report.decisions[0].remaining).toBe(11);
    // a reports 5 more, uncovered: 3 fit beside b's 8.
    expect(absorb(sync(limits, "a", 5, 0), leases, access, 0)).toMatchObject({ accepted: 3, reserved: 0 });
    expect(access.taken).toEqual([5, 4, 3]);
  });

  it("takes a late report from the credit its expired lease was charged, and charges it no second time", () => {
    const leases = new LeaseBook();
    let now = 0;
    const access = counters(() => now);
    const limits = [window(20)];
    absorb(sync(limits, "a", 0, 8, { ttlMs: 1_000 }), leases, access, now);
    now = 1_000;
    const late = absorb(sync(limits, "a", 6, 0), leases, access, now);
    expect(late).toMatchObject({ accepted: 6, reserved: 0 });
    expect(late.decisions[0].remaining).toBe(12);
    expect(access.taken).toEqual([8]);
  });

  it(`gives a lease the time asked for, never below 0 nor above ${MAX_LEASE_TTL_MS} ms`, () => {
    for (const [ttlMs, expiresAt] of [
      [2_500, 2_500],
      [-50, 0],
      [MAX_LEASE_TTL_MS + 1, MAX_LEASE_TTL_MS],
      [2 ** 31, MAX_LEASE_TTL_MS],
    ]) {
      const leases = new LeaseBook();
      absorb(
        sync([window(10)], "a", 0, 4, { ttlMs }),
        leases,
        counters(() => 0),
        0,
      );
      expect(leases.firstExpiry(leaseId({ key: "k", limits: [window(10)], cost: 0 }))).toBe(expiresAt);
    }
  });

  it("a holder's sync renews its lease's time even when it gets nothing more", () => {
    const leases = new LeaseBook();
    const access = counters(() => 0);
    const limits = [window(10)];
    absorb(sync(limits, "a", 0, 10, { ttlMs: 1_000 }), leases, access, 0);
    expect(absorb(sync(limits, "a", 0, 10, { ttlMs: 1_000 }), leases, access, 600).reserved).toBe(10);
    expect(leases.firstExpiry(leaseId({ key: "k", limits, cost: 0 }))).toBe(1_600);
  });

  it("never leases more than the tightest window has free", () => {
    const leases = new LeaseBook();
    const access = counters(() => 0);
    const limits = [window(100, "wide"), window(7, "tight")];
    expect(absorb(sync(limits, "a", 0, 50), leases, access, 0)).toMatchObject({ allowed: true, reserved: 7 });
  });

  it("shares what the tightest window has free, not the widest", () => {
    const leases = new LeaseBook();
    const access = counters(() => 0);
    const limits = [window(100, "wide"), window(10, "tight")];
    expect(absorb(sync(limits, "a", 0, 4), leases, access, 0).reserved).toBe(4);
    // 6 free on the tight window, one holder besides b: ⌈6 / 2⌉ = 3 (the wide window's 96 would give 48, of which 6 fit).
    expect(absorb(sync(limits, "b", 0, 1_000), leases, access, 0).reserved).toBe(3);
  });
});

describe("decideBesideLeases", () => {
  it("allows and takes a call that fits with the leases counted as taken", () => {
    const leases = new LeaseBook();
    const access = counters(() => 0);
    const limits = [window(10)];
    const call: CounterCall = { key: "k", limits, cost: 4 };
    leases.grant(leaseId(call), "a", 6, 1_000, 0);
    expect(decideBesideLeases(call, 6, leases, access, 0)).toEqual({ allowed: true, decisions: access.peek(call) });
    expect(access.peek(call)[0].remaining).toBe(6);
    // A read (cost 0) takes nothing.
    decideBesideLeases({ key: "k", limits, cost: 0 }, 6, leases, access, 0);
    expect(access.taken).toEqual([4]);
  });

  it("refuses provisionally a call only the leases keep out: what is free beside them, retry by the first lease's end", () => {
    const leases = new LeaseBook();
    const access = counters(() => 0);
    const limits = [window(10, "short"), window(100, "long"), window(12, "exact")];
    const call: CounterCall = { key: "k", limits, cost: 5 };
    leases.grant(leaseId(call), "a", 6, 1_000, 0);
    leases.grant(leaseId(call), "b", 1, 3_000, 0);
    const verdict = decideBesideLeases(call, 7, leases, access, 400);
    expect(verdict.allowed).toBe(false);
    expect(verdict.provisional).toBe(true);
    const [short, long, exact] = verdict.decisions;
    // The short window has 10 − 7 = 3 free beside the leases: too few for 5, retry when a's lease ends (600 ms on).
    expect(short).toMatchObject({ allowed: false, remaining: 3, retryAfterMs: 600 });
    // The long window has 93 free, the third exactly the 5 asked: neither refused the call, so both are shown as they stand.
    expect(long).toEqual({ ...access.peek(call)[1], remaining: 93 });
    expect(exact).toEqual({ ...access.peek(call)[2], remaining: 5 });
    expect(access.taken).toEqual([]);
  });

  it("says to retry in 1 ms at the soonest, even at or past the first lease's end", () => {
    const leases = new LeaseBook();
    const access = counters(() => 0);
    const call: CounterCall = { key: "k", limits: [window(10)], cost: 5 };
    leases.grant(leaseId(call), "a", 6, 1_000, 0);
    expect(decideBesideLeases(call, 6, leases, access, 1_000).decisions[0].retryAfterMs).toBe(1);
    expect(decideBesideLeases(call, 6, leases, access, 999).decisions[0].retryAfterMs).toBe(1);
    expect(decideBesideLeases(call, 6, leases, access, 998).decisions[0].retryAfterMs).toBe(2);
  });
});
