/**
 * The lease book's memory bound (src/durable/counters/leases/leases.ts): each record counts
 * the UTF-16 of its counter and holder names and a fixed overhead, a new
 * record that would take the book past its capacity is not made (the
 * holder is told it holds nothing), and every record dropped gives its bytes
 * back. Exact values, plain data (mutation testing, docs/testing.md).
 */
import { describe, expect, it } from "vitest";
import { CREDIT_KEPT_MS, LEASE_BOOK_BYTES, LeaseBook } from "../../src/durable/counters/leases/leases.ts";

/** A record's bytes: 2 per UTF-16 unit of its counter and holder, and 128 for its Map entries, object and numbers. */
const record = (counter: string, holder: string) => 2 * (counter.length + holder.length) + 128;

describe("LeaseBook's bytes", () => {
  it("counts each record from its names", () => {
    const book = new LeaseBook();
    expect(book.bytes).toBe(0);
    book.grant("ab", "xyz", 5, 1_000, 0);
    expect(book.bytes).toBe(138);
    book.grant("ab", "q", 5, 1_000, 0);
    book.grant("counter-2", "xyz", 1, 1_000, 0);
    expect(book.bytes).toBe(138 + 134 + 152);
    // A grant to a record already there (more quota, or a renewal) adds no bytes; a grant of nothing makes no record.
    book.grant("ab", "xyz", 3, 1_000, 10);
    book.grant("ab", "new", 0, 1_000, 10);
    expect(book.bytes).toBe(138 + 134 + 152);
    expect(record("ab", "xyz")).toBe(138);
  });

  it("makes no record past its capacity, and takes one again once a record is dropped", () => {
    const book = new LeaseBook(2 * record("c", "h"));
    book.grant("c", "h", 5, 1_000, 0);
    book.grant("c", "i", 5, 1_000, 0);
    // Exactly full.
    expect(book.bytes).toBe(264);
    book.grant("c", "j", 5, 1_000, 0);
    book.grant("d", "h", 5, 1_000, 0);
    expect([book.reservedBy("c", "j"), book.reservedBy("d", "h"), book.total("c"), book.bytes]).toEqual([0, 0, 10, 264]);
    // A report that spends the whole lease drops the record: its bytes are free again.
    expect(book.settle("c", "h", 5, 0, 10)).toEqual({ covered: 5, credited: 0, uncovered: 0 });
    expect(book.bytes).toBe(132);
    book.grant("c", "j", 5, 1_000, 20);
    expect([book.reservedBy("c", "j"), book.bytes]).toEqual([5, 264]);
    // One byte short of a record: none.
    const short = new LeaseBook(record("c", "h") - 1);
    short.grant("c", "h", 5, 1_000, 0);
    expect([short.reservedBy("c", "h"), short.bytes, short.empty]).toEqual([0, 0, true]);
  });

  it("holds LEASE_BOOK_BYTES by default: one record of exactly that size, not one of a byte more", () => {
    expect(LEASE_BOOK_BYTES).toBe(1024 * 1024);
    const fits = "c".repeat((LEASE_BOOK_BYTES - 128) / 2 - 1);
    const book = new LeaseBook();
    book.grant(fits, "h", 1, 1_000, 0);
    expect([book.reservedBy(fits, "h"), book.bytes]).toEqual([1, LEASE_BOOK_BYTES]);
    const over = new LeaseBook();
    over.grant(`${fits}c`, "h", 1, 1_000, 0);
    expect([over.reservedBy(`${fits}c`, "h"), over.bytes, over.empty]).toEqual([0, 0, true]);
  });

  it("gives back a record's bytes when it expires with nothing to credit, or once its credit is no longer kept", () => {
    const book = new LeaseBook();
    book.grant("c", "h", 4, 1_000, 0);
    book.grant("c", "i", 2, 1_000, 0);
    // "i" reports its whole lease: dropped at once.
    book.settle("c", "i", 2, 0, 500);
    expect(book.bytes).toBe(132);
    // "h" expires unreported: charged whole, its record kept as credit for a late report…
    expect(book.expire("c", 1_000)).toBe(4);
    expect([book.bytes, book.empty]).toEqual([132, false]);
    expect(book.expire("c", 1_000 + CREDIT_KEPT_MS - 1)).toBe(0);
    expect([book.bytes, book.empty]).toEqual([132, false]);
    // …until CREDIT_KEPT_MS after its end.
    expect(book.expire("c", 1_000 + CREDIT_KEPT_MS)).toBe(0);
    expect([book.bytes, book.empty, book.total("c"), book.holders("c")]).toEqual([0, true, 0, 0]);
  });
});
