/**
 * The breaches an isolate answers from its certain-block cache
 * (src/isolate/breaches.ts, docs/rules.md "Penalty box"): counted per
 * counter, carried by the counter's next call, given back when its batch
 * fails, and kept within BREACH_BYTES whatever the keys' length
 * (docs/reliability.md, "Bounded memory"). Plain: no bindings.
 *
 * Breaks tried: the book bounded by entries (10,000) again, not bytes: 4 KB
 * keys held 80 MB of ids ("4 KB keys stay within" failed); add() forgetting
 * nothing past the bound: the same test failed; attach() not taking a
 * carried count's bytes back: "bytes go back" failed.
 */
import { describe, expect, it } from "vitest";
import { BREACH_BYTES, BreachBook, breachBytes } from "../../src/isolate/breaches.ts";
import type { CounterCall } from "../../src/stored/wire-calls.ts";

const penalty = { blockMs: 3_000, escalate: 2, maxBlockMs: 10_000 };
const limit = { id: "fw:2:1000:2", algorithm: "fixed_window", limit: 2, windowMs: 1_000, burst: 2, penalty } as const;
const hit = (key: string): CounterCall => ({ key, cost: 1, limits: [limit] });

describe("BreachBook", () => {
  it("counts a counter's breaches and carries them on its next call, once", () => {
    const book = new BreachBook();
    for (let i = 0; i < 3; i++) book.count(hit("a"));
    book.count({ key: "b", cost: 1, limits: [{ ...limit, penalty: undefined }] });
    expect(book.size).toBe(1);
    const batch = book.attach([hit("a"), hit("b")]);
    expect(batch?.calls.map((c) => (c as { breaches?: number }).breaches)).toEqual([3, undefined]);
    expect(book.attach([hit("a")])).toBeUndefined();
    batch?.restore();
    expect(book.attach([hit("a")])?.calls.map((c) => (c as { breaches?: number }).breaches)).toEqual([3]);
  });

  it("weighs each count in bytes, and the bytes go back when a count is carried", () => {
    const book = new BreachBook();
    book.count(hit("a"));
    book.count(hit("a"));
    book.count(hit("bb"));
    expect(book.bytes).toBe(breachBytes("a\u0001fw:2:1000:2") + breachBytes("bb\u0001fw:2:1000:2"));
    book.attach([hit("a")]);
    expect(book.bytes).toBe(breachBytes("bb\u0001fw:2:1000:2"));
    book.attach([hit("bb")]);
    expect(book.bytes).toBe(0);
  });

  it("holds over 10,000 counts of short keys by default", () => {
    const book = new BreachBook();
    for (let i = 0; i < 12_000; i++) book.count(hit(`["api",["user","u${i}"]]`));
    expect(book.size).toBe(12_000);
    expect(book.bytes).toBeLessThanOrEqual(BREACH_BYTES);
  });

  it("4 KB keys stay within BREACH_BYTES, the oldest count forgotten first", () => {
    const book = new BreachBook();
    const key = (i: number) => `${i}:${"k".repeat(4_096)}`;
    for (let i = 0; i < 20_000; i++) book.count(hit(key(i)));
    expect(book.bytes).toBeLessThanOrEqual(BREACH_BYTES);
    expect(book.size).toBeLessThan(300);
    expect(book.size).toBeGreaterThan(200);
    // The newest are kept, the oldest gone.
    expect(book.attach([hit(key(19_999))])).toBeDefined();
    expect(book.attach([hit(key(0))])).toBeUndefined();
  });

  it("keeps no count of an id larger than its capacity", () => {
    const book = new BreachBook(1_000);
    book.count(hit("x".repeat(1_000)));
    expect([book.size, book.bytes]).toEqual([0, 0]);
  });
});
