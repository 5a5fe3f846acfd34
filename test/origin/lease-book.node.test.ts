/**
 * The lease book is bounded (docs/reliability.md, "Security"): isolates
 * (or a client able to make new ones) syncing under ever new holder names
 * cannot grow an object's lease records past LEASE_BOOK_BYTES, its share of
 * MEMORY_BYTES; a holder refused a record is told it holds nothing, and a
 * dropped record frees its room.
 *
 * Break tried: grant without its capacity check (bytes grew past the
 * capacity, and the refused holder was leased 5).
 */
import { describe, expect, it } from "vitest";
import { MEMORY_BYTES } from "../../src/durable/counters/counter-cache.ts";
import { LEASE_BOOK_BYTES, LeaseBook } from "../../src/durable/counters/leases/leases.ts";

describe("the lease book under a flood of holders", () => {
  it("stays within its capacity, leases nothing to a holder it has no room for, and frees room when records go", () => {
    expect(LEASE_BOOK_BYTES).toBe(MEMORY_BYTES / 8);
    const capacity = 16 * 1024;
    const book = new LeaseBook(capacity);
    let granted = 0;
    for (let i = 0; i < 1_000; i++) {
      book.grant(`counter-${i % 7}`, `holder-${i}-${"x".repeat(40)}`, 5, 1_000, 0);
      if (book.reservedBy(`counter-${i % 7}`, `holder-${i}-${"x".repeat(40)}`) > 0) granted += 1;
      expect(book.bytes).toBeLessThanOrEqual(capacity);
    }
    expect(granted).toBeGreaterThan(10);
    expect(granted).toBeLessThan(1_000);
    const late = `holder-late-${"x".repeat(40)}`;
    book.grant("counter-0", late, 5, 1_000, 0);
    expect(book.reservedBy("counter-0", late)).toBe(0);
    // Every lease expires and is charged; past the credit's time the records go, and room comes back.
    for (let c = 0; c < 7; c++) book.expire(`counter-${c}`, 1_000 + 60_000);
    expect(book.bytes).toBe(0);
    book.grant("counter-0", late, 5, 1_000, 70_000);
    expect(book.reservedBy("counter-0", late)).toBe(5);
  });
});
