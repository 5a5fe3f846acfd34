/**
 * A region's copy lending its isolates quota out of its own lease
 * (docs/placement.md, "Hot keys at the region's copy";
 * src/durable/counters/leases/relay-sublease.ts), step by step at exact
 * values on a plain record and lease book: what each isolate is lent (a fair
 * share of what the copy's lease has free, never past the copy's own end),
 * what it is told, its reported hits moving from lent to pending, an expired
 * loan charged whole and a late report taken from that credit. A random
 * walk holds the bound: pending + in flight + lent ≤ the copy's lease, and
 * every hit an isolate reports or loses is pending exactly once.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LeaseBook } from "../../src/durable/counters/leases/leases.ts";
import { MAX_LEASE_TTL_MS } from "../../src/durable/counters/leases/precount-sync.ts";
import { type Held, newHeld } from "../../src/durable/counters/leases/relay-lease.ts";
import { expireLent, lend, SUBLEASE_BOOK_BYTES } from "../../src/durable/counters/leases/relay-sublease.ts";
import type { AbsorbCall, LimitCall } from "../../src/stored/wire-calls.ts";

const LIMITS: LimitCall[] = [{ id: "m", algorithm: "fixed_window", limit: 1_000, windowMs: 60_000, burst: 1_000 }];
const ID = "k\u0001m";
const T0 = 100_000;

/** The copy's record of the key: a lease of `budget` from the home, spendable until `until`, its view as of T0. */
function copy(budget: number, until = T0 + 10_000, fields: Partial<Held> = {}): Held {
  const held = newHeld({ key: "k", cost: 1, limits: LIMITS }, T0 - 5_000);
  held.snapshot = [{ allowed: true, limit: 1_000, remaining: 600, resetAfterMs: 30_000, retryAfterMs: 0, effectiveWindowMs: 60_000 }];
  held.syncedAt = T0;
  return Object.assign(held, { budget, until }, fields);
}

const isolate = (holder: string, cost: number, want: number, extra: { release?: number; ttlMs?: number } = {}): AbsorbCall => ({
  key: "k",
  limits: LIMITS,
  cost,
  kind: "absorb",
  lease: { holder, want, release: extra.release, ttlMs: extra.ttlMs ?? 5_000 },
});

describe("lend", () => {
  it("a first ask: a share of what the copy's lease has free, for the isolate's time to live", () => {
    const book = new LeaseBook(SUBLEASE_BOOK_BYTES);
    const held = copy(20);
    const verdict = lend(book, ID, held, isolate("a", 0, 8), T0);
    expect(verdict).toEqual({
      allowed: true,
      decisions: [{ allowed: true, limit: 1_000, remaining: 600, resetAfterMs: 30_000, retryAfterMs: 0, effectiveWindowMs: 60_000 }],
      accepted: 0,
      reserved: 8,
      leaseMs: 5_000,
    });
    expect([held.subleased, held.pending, held.subAsk, held.lastHitAt, held.hitsSinceSync]).toEqual([8, 0, 0, T0, 0]);
  });

  it("the share is free ÷ (holders + 1), rounded up; what was not lent is asked of the home at the next sync", () => {
    const book = new LeaseBook(SUBLEASE_BOOK_BYTES);
    const held = copy(20, T0 + 10_000, { pending: 2, inflight: 3 });
    // Free: 20 − 2 − 3 = 15, alone: all of it up to the want.
    expect(lend(book, ID, held, isolate("a", 0, 6), T0).reserved).toBe(6);
    // Free: 15 − 6 = 9 beside one holder: ⌈9 / 2⌉ = 5 of 8 asked, 3 asked in vain.
    expect(lend(book, ID, held, isolate("b", 0, 8), T0).reserved).toBe(5);
    expect([held.subleased, held.subAsk]).toEqual([11, 3]);
    // "a" again, holding 6 and wanting 10: 4 more of ⌈4 / 2⌉ = 2 (it is one of the two holders).
    expect(lend(book, ID, held, isolate("a", 0, 10), T0).reserved).toBe(8);
    expect([held.subleased, held.subAsk]).toEqual([13, 5]);
  });

  it("never longer than the copy's own lease, nor MAX_LEASE_TTL_MS; a copy whose lease ran out lends nothing", () => {
    const book = new LeaseBook(SUBLEASE_BOOK_BYTES);
    expect(lend(book, ID, copy(20, T0 + 1_500), isolate("a", 0, 4), T0).leaseMs).toBe(1_500);
    expect(lend(new LeaseBook(), ID, copy(20, T0 + 60_000), isolate("a", 0, 4, { ttlMs: 60_000 }), T0).leaseMs).toBe(MAX_LEASE_TTL_MS);
    const spent = copy(20, T0);
    expect(lend(new LeaseBook(), ID, spent, isolate("a", 0, 4), T0)).toMatchObject({ reserved: 0, leaseMs: 0 });
    expect([spent.subleased, spent.subAsk]).toEqual([0, 4]);
    // A negative time to live asks for none.
    const negative = copy(20);
    expect(lend(new LeaseBook(), ID, negative, isolate("a", 0, 4, { ttlMs: -5 }), T0)).toMatchObject({ reserved: 0, leaseMs: 0 });
    expect(negative.subAsk).toBe(4);
  });

  it("a want that is not a number, or what is held already, asks for nothing", () => {
    const held = copy(20);
    const book = new LeaseBook(SUBLEASE_BOOK_BYTES);
    expect(lend(book, ID, held, isolate("a", 0, Number.NaN), T0)).toMatchObject({ reserved: 0, leaseMs: 0 });
    expect(held.subAsk).toBe(0);
    lend(book, ID, held, isolate("a", 0, 5), T0);
    expect(lend(book, ID, held, isolate("a", 0, 3), T0 + 100)).toMatchObject({ reserved: 5, leaseMs: 5_000 });
    expect(held.subAsk).toBe(0);
  });

  it("nothing free: nothing lent, all of it asked of the home", () => {
    const held = copy(10, T0 + 10_000, { pending: 6, inflight: 4 });
    expect(lend(new LeaseBook(), ID, held, isolate("a", 0, 3), T0)).toMatchObject({ reserved: 0, leaseMs: 0 });
    expect(held.subAsk).toBe(3);
  });

  it("reported hits move from lent to pending; the view is less the copy's uncharged hits, aged", () => {
    const book = new LeaseBook(SUBLEASE_BOOK_BYTES);
    const held = copy(20);
    lend(book, ID, held, isolate("a", 0, 8), T0);
    const verdict = lend(book, ID, held, isolate("a", 5, 8, { release: 0 }), T0 + 400);
    // 5 of its 8 spent and charged here; the want of 8 tops it up from 3 by ⌈(20 − 5 − 3) / 1⌉ capped at 5.
    expect(verdict).toMatchObject({ accepted: 5, reserved: 8, leaseMs: 5_000 });
    expect(verdict.decisions[0]).toMatchObject({ remaining: 595, resetAfterMs: 29_600, effectiveWindowMs: 59_600 });
    expect([held.pending, held.subleased, held.hitsSinceSync, held.lastHitAt]).toEqual([5, 8, 5, T0 + 400]);
  });

  it("a report without a lease: charged here, no lease told", () => {
    const held = copy(20);
    const verdict = lend(new LeaseBook(), ID, held, { key: "k", limits: LIMITS, cost: 3, kind: "absorb" }, T0 + 10);
    expect(verdict).toEqual({ allowed: true, decisions: verdict.decisions, accepted: 3 });
    expect([held.pending, held.hitsSinceSync, held.lastHitAt]).toEqual([3, 3, T0 + 10]);
  });

  it("hits no lease here covered (the copy restarted) are charged too", () => {
    const held = copy(20);
    expect(lend(new LeaseBook(), ID, held, isolate("a", 4, 0), T0)).toMatchObject({ accepted: 4, reserved: 0, leaseMs: 0 });
    expect(held.pending).toBe(4);
  });

  it("a give-back returns quota to the copy; a sync that spends and wants nothing does not keep the key busy", () => {
    const book = new LeaseBook(SUBLEASE_BOOK_BYTES);
    const held = copy(20);
    lend(book, ID, held, isolate("a", 0, 8), T0);
    expect(lend(book, ID, held, isolate("a", 0, 0, { release: 8 }), T0 + 2_000)).toMatchObject({ reserved: 0, leaseMs: 0 });
    expect([held.subleased, held.lastHitAt]).toEqual([0, T0]);
  });

  it("a loan not renewed in time is charged whole; its late report is taken from that credit, never twice", () => {
    const book = new LeaseBook(SUBLEASE_BOOK_BYTES);
    const held = copy(20, T0 + 30_000);
    lend(book, ID, held, isolate("a", 0, 6, { ttlMs: 1_000 }), T0);
    expireLent(book, ID, held, T0 + 999);
    expect([held.pending, held.subleased]).toEqual([0, 6]);
    expireLent(book, ID, held, T0 + 1_000);
    expect([held.pending, held.subleased]).toEqual([6, 0]);
    const late = lend(book, ID, held, isolate("a", 4, 0), T0 + 1_500);
    expect(late).toMatchObject({ accepted: 4, reserved: 0, leaseMs: 0 });
    expect(held.pending).toBe(6);
  });

  it("expireLent on an empty book changes nothing", () => {
    const held = copy(20, T0 + 10_000, { subleased: 0, pending: 1 });
    expireLent(new LeaseBook(), ID, held, T0);
    expect([held.pending, held.subleased]).toEqual([1, 0]);
  });
});

describe("the bound, over random isolates' syncs", () => {
  it("pending + in flight + lent ≤ the copy's lease; every reported or expired hit is pending once", () => {
    const step = fc.record({
      holder: fc.constantFrom("a", "b", "c"),
      spend: fc.nat(6),
      want: fc.nat(12),
      release: fc.nat(3),
      ttlMs: fc.integer({ min: 200, max: 3_000 }),
      after: fc.nat(900),
    });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), fc.integer({ min: 0, max: 60 }), (steps, budget) => {
        const book = new LeaseBook(SUBLEASE_BOOK_BYTES);
        const held = copy(budget, T0 + 20_000);
        let now = T0;
        let reported = 0;
        for (const s of steps) {
          now += s.after;
          // An isolate spends only what its lease covers (the rest it never allowed).
          const own = book.reservedBy(ID, s.holder);
          const spend = Math.min(s.spend, own);
          const before = held.pending;
          const verdict = lend(book, ID, held, isolate(s.holder, spend, s.want, { release: s.release, ttlMs: s.ttlMs }), now);
          reported += verdict.accepted ?? 0;
          expect(held.pending - before).toBeGreaterThanOrEqual(0);
          expect(held.pending + held.inflight + held.subleased).toBeLessThanOrEqual(budget);
          expect(held.subleased).toBe(book.total(ID));
        }
        expireLent(book, ID, held, now + 60_000);
        expect(held.subleased).toBe(0);
        // Everything lent was spent or came back: what is pending is every hit reported plus every loan that expired.
        expect(held.pending).toBeGreaterThanOrEqual(reported);
        expect(held.pending).toBeLessThanOrEqual(budget);
      }),
      { numRuns: 300 },
    );
  });
});
