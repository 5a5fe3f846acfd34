/**
 * A region's copy's hit taken from its own lease first at the home
 * (docs/placement.md, "Bursts"; src/durable/counters/leases/precount-sync.ts
 * `decideBesideLeases` with `fromLease`, the copy's side in
 * src/durable/counters/leases/relay-lease.ts): only what the lease holds
 * beyond the hits the copy spent and lent and has not reported (`claimed`),
 * only once the sync the hit followed is in, and the copy's budget shrinks by
 * it whichever of the hit's and a sync's answers comes first. Plain data at
 * chosen instants; the burst from three regions through real objects is
 * test/gateway/burst-quota.slow.test.ts.
 */
import { describe, expect, it } from "vitest";
import { getAlgorithm } from "../../src/algorithms/index.ts";
import { LeaseBook } from "../../src/durable/counters/leases/leases.ts";
import { type CounterAccess, decideBesideLeases, leaseId } from "../../src/durable/counters/leases/precount-sync.ts";
import { answered, canSpend, newHeld, takeLease } from "../../src/durable/counters/leases/relay-lease.ts";
import type { CounterCall, LimitCall } from "../../src/stored/wire-calls.ts";

const YEAR = 31_536_000_000;
const limits: LimitCall[] = [{ id: "fw", algorithm: "fixed_window", limit: 10, windowMs: YEAR, burst: 10 }];
const ID = leaseId({ key: "k", limits, cost: 0 });

/** A counter as the object lends it, at one instant. */
function counters(): CounterAccess {
  let state: unknown;
  const step = (cost: number) => getAlgorithm("fixed_window").decide(state, limits[0], 0, cost);
  return {
    fits: (_, cost) => step(cost).decision.allowed,
    take: (_, cost) => {
      state = step(cost).state;
    },
    peek: () => [step(0).decision],
  };
}

/** A book where region "r" holds 8 of a limit of 10 (its sync numbered 5 taken) and "o" holds 2: nothing free. */
function full(): LeaseBook {
  const book = new LeaseBook();
  book.grant(ID, "r", 8, 10_000, 0);
  book.noteSync(ID, "r", 5);
  book.grant(ID, "o", 2, 10_000, 0);
  return book;
}

const hit = (cost: number, after: number, claimed: number): CounterCall => ({ key: "k", limits, cost, fromLease: { holder: "r", after, claimed } });

describe("a hit asked beside the asker's lease", () => {
  it("is taken from that lease when nothing is free beside the leases", () => {
    const book = full();
    const access = counters();
    const verdict = decideBesideLeases(hit(3, 5, 0), 10, book, access, 0);
    expect(verdict).toMatchObject({ allowed: true, taken: { hits: 3, after: 5 } });
    expect([book.reservedBy(ID, "r"), book.total(ID), access.peek(hit(0, 0, 0))[0].remaining]).toEqual([5, 7, 7]);
  });

  it("takes only what the lease holds beyond what the asker claims as spent or lent", () => {
    const book = full();
    // 8 held, 6 claimed: 2 takeable, and the third hit has nothing free.
    expect(decideBesideLeases(hit(3, 5, 6), 10, book, counters(), 0)).toMatchObject({ allowed: false, provisional: true });
    expect(decideBesideLeases(hit(2, 5, 6), 10, book, counters(), 0)).toMatchObject({ allowed: true, taken: { hits: 2, after: 5 } });
    expect(book.reservedBy(ID, "r")).toBe(6);
  });

  it("takes nothing before the sync it followed is in, nor for a claim that is not a number", () => {
    for (const call of [hit(1, 6, 0), hit(1, Number.NaN, 0), hit(1, 5, Number.NaN)]) {
      const book = full();
      expect(decideBesideLeases(call, 10, book, counters(), 0)).toMatchObject({ allowed: false, provisional: true });
      expect(book.reservedBy(ID, "r")).toBe(8);
    }
  });
});

describe("the copy's budget", () => {
  const held = () => Object.assign(newHeld({ key: "k", limits, cost: 1 }, 0), { budget: 8, until: 10_000, syncNo: 6 });

  it("counts hits asked and not answered against the lease", () => {
    const record = held();
    expect(canSpend(record, 8, 0)).toBe(true);
    record.asking = 1;
    expect(canSpend(record, 8, 0)).toBe(false);
    expect(canSpend(record, 7, 0)).toBe(true);
  });

  it("shrinks by what the home took, also when a sync answered later still counted it", () => {
    const record = held();
    record.asking = 3;
    // Taken after sync 6 was in: sync 6's answer (8) still holds it.
    answered(record, 3, { hits: 3, after: 6 });
    expect([record.asking, record.budget]).toEqual([0, 5]);
    takeLease(record, { allowed: true, decisions: [], reserved: 8 }, 0, 1);
    expect(record.budget).toBe(5);
    // Sync 7 was taken after it: its answer no longer holds it.
    record.syncNo = 7;
    takeLease(record, { allowed: true, decisions: [], reserved: 5 }, 0, 1);
    expect([record.budget, record.takes]).toEqual([5, []]);
  });

  it("keeps its budget for an answer that took nothing, or failed", () => {
    const record = held();
    record.asking = 2;
    answered(record, 1, undefined);
    answered(record, 1, { hits: 0, after: 6 });
    expect([record.asking, record.budget, record.takes]).toEqual([0, 8, []]);
  });
});
