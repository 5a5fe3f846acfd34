/**
 * The lease book on its own (src/durable/counters/leases/leases.ts), driven at chosen
 * instants: what each holder holds, when a lease ends and is charged whole,
 * how a late report is taken from that charge first, and when a record is
 * dropped. Plain data, no object: the object's own lease tests
 * (test/durable/leases.test.ts) run the same rules through real storage; this
 * file pins the exact boundaries (mutation testing, docs/testing.md).
 */
import { describe, expect, it } from "vitest";
import { CREDIT_KEPT_MS, LeaseBook } from "../../src/durable/counters/leases/leases.ts";

const C = "counter";

describe("LeaseBook", () => {
  it("starts empty; a grant of 0 to a holder it does not know records nothing", () => {
    const book = new LeaseBook();
    expect(book.empty).toBe(true);
    book.grant(C, "a", 0, 1_000, 0);
    expect(book.empty).toBe(true);
    expect([book.total(C), book.holders(C), book.reservedBy(C, "a"), book.firstExpiry(C)]).toEqual([0, 0, 0, Infinity]);
    // An unknown counter or holder reads as nothing leased.
    expect(book.expire(C, 10)).toBe(0);
    expect(book.settle(C, "a", 3, 0, 10)).toEqual({ covered: 0, credited: 0, uncovered: 3 });
  });

  it("sums leases over holders, counts only holders holding something, and renews a lease's time on every grant", () => {
    const book = new LeaseBook();
    book.grant(C, "a", 4, 1_000, 100);
    book.grant(C, "b", 6, 500, 200);
    book.grant("other", "a", 9, 1_000, 0);
    expect(book.empty).toBe(false);
    expect([book.total(C), book.holders(C), book.reservedBy(C, "a"), book.reservedBy(C, "b")]).toEqual([10, 2, 4, 6]);
    expect(book.firstExpiry(C)).toBe(700);
    // More for a, and a renewal of b (amount 0): b's lease now ends at 300 + 2 000.
    book.grant(C, "a", 3, 1_000, 250);
    book.grant(C, "b", 0, 2_000, 300);
    expect([book.reservedBy(C, "a"), book.reservedBy(C, "b"), book.total(C)]).toEqual([7, 6, 13]);
    expect(book.firstExpiry(C)).toBe(1_250);
    // A holder that gave everything back no longer counts as a holder, nor as the first to expire.
    book.settle(C, "a", 0, 7, 400);
    expect([book.holders(C), book.total(C), book.firstExpiry(C)]).toEqual([1, 6, 2_300]);
    expect(book.total("other")).toBe(9);
  });

  it("ends a lease exactly at its expiry: charged whole, once, and kept as credit", () => {
    const book = new LeaseBook();
    book.grant(C, "a", 5, 1_000, 0);
    book.grant(C, "b", 2, 3_000, 0);
    expect(book.expire(C, 999)).toBe(0);
    expect(book.total(C)).toBe(7);
    expect(book.expire(C, 1_000)).toBe(5);
    expect([book.total(C), book.holders(C), book.reservedBy(C, "a")]).toEqual([2, 1, 0]);
    // a's record now holds credit only: the first lease to end is b's.
    expect(book.firstExpiry(C)).toBe(3_000);
    // Charged once: a second look at the same or a later instant charges nothing more for a.
    expect(book.expire(C, 1_000)).toBe(0);
    expect(book.expire(C, 2_999)).toBe(0);
    // The late report of a's hits is taken from its credit first, then nothing is left to cover.
    expect(book.settle(C, "a", 3, 0, 2_999)).toEqual({ covered: 0, credited: 3, uncovered: 0 });
    expect(book.settle(C, "a", 4, 0, 2_999)).toEqual({ covered: 0, credited: 2, uncovered: 2 });
    // a's credit is spent and it holds nothing: its record is gone, so a report finds nothing.
    expect(book.settle(C, "a", 1, 0, 2_999)).toEqual({ covered: 0, credited: 0, uncovered: 1 });
  });

  it(`keeps an expired lease's credit ${CREDIT_KEPT_MS} ms after its expiry, then drops the record`, () => {
    const book = new LeaseBook();
    book.grant(C, "a", 5, 1_000, 0);
    expect(book.expire(C, 1_000)).toBe(5);
    expect(book.empty).toBe(false);
    book.expire(C, 1_000 + CREDIT_KEPT_MS - 1);
    expect(book.empty).toBe(false);
    book.expire(C, 1_000 + CREDIT_KEPT_MS);
    expect(book.empty).toBe(true);
    expect(book.settle(C, "a", 5, 0, 1_000 + CREDIT_KEPT_MS)).toEqual({ covered: 0, credited: 0, uncovered: 5 });
  });

  it("a report after the expiry moves the credit's keeping time to the report", () => {
    const book = new LeaseBook();
    book.grant(C, "a", 10, 1_000, 0);
    book.expire(C, 1_000);
    // 4 of the 10 reported at 30 000: the other 6 stay credit, kept 60 s from then, not from 1 000.
    expect(book.settle(C, "a", 4, 0, 30_000)).toEqual({ covered: 0, credited: 4, uncovered: 0 });
    book.expire(C, 1_000 + CREDIT_KEPT_MS);
    expect(book.empty).toBe(false);
    expect(book.settle(C, "a", 6, 0, 1_000 + CREDIT_KEPT_MS)).toEqual({ covered: 0, credited: 6, uncovered: 0 });
    expect(book.empty).toBe(true);
  });

  it("a report before the expiry does not move the expiry earlier", () => {
    const book = new LeaseBook();
    book.grant(C, "a", 10, 5_000, 0);
    expect(book.settle(C, "a", 2, 0, 1_000)).toEqual({ covered: 2, credited: 0, uncovered: 0 });
    expect(book.firstExpiry(C)).toBe(5_000);
    expect(book.expire(C, 4_999)).toBe(0);
    expect(book.expire(C, 5_000)).toBe(8);
  });

  it("covers reported hits from the lease, gives back the release, and charges the rest to nobody", () => {
    const book = new LeaseBook();
    book.grant(C, "a", 10, 1_000, 0);
    expect(book.settle(C, "a", 3, 2, 10)).toEqual({ covered: 3, credited: 0, uncovered: 0 });
    expect(book.reservedBy(C, "a")).toBe(5);
    // More spent than held: the lease covers what it holds, the rest is uncovered; a release beyond what is left gives back all of it.
    expect(book.settle(C, "a", 7, 0, 20)).toEqual({ covered: 5, credited: 0, uncovered: 2 });
    expect(book.empty).toBe(true);
    book.grant(C, "b", 4, 1_000, 0);
    expect(book.settle(C, "b", 1, 100, 10)).toEqual({ covered: 1, credited: 0, uncovered: 0 });
    expect([book.reservedBy(C, "b"), book.total(C), book.empty]).toEqual([0, 0, true]);
  });

  it("a holder whose lease expired and was granted again is covered by its credit first, then by its new lease", () => {
    const book = new LeaseBook();
    book.grant(C, "a", 5, 100, 0);
    expect(book.expire(C, 100)).toBe(5);
    book.grant(C, "a", 4, 100, 100);
    expect(book.settle(C, "a", 6, 0, 150)).toEqual({ covered: 1, credited: 5, uncovered: 0 });
    expect(book.reservedBy(C, "a")).toBe(3);
  });

  it("expiring one counter leaves the others and drops only records holding nothing", () => {
    const book = new LeaseBook();
    book.grant(C, "a", 3, 100, 0);
    book.grant("other", "a", 4, 100, 0);
    expect(book.expire(C, 100 + CREDIT_KEPT_MS)).toBe(3);
    // a's record on C held 3 until now: charged, and credit kept from its expiry, which has passed: dropped at once.
    expect(book.total("other")).toBe(4);
    expect(book.settle(C, "a", 3, 0, 100 + CREDIT_KEPT_MS)).toEqual({ covered: 0, credited: 0, uncovered: 3 });
    expect(book.expire("other", 50)).toBe(0);
    expect(book.empty).toBe(false);
  });
});
