/**
 * The certain-block cache's answers, exact: times aged from the answer's
 * arrival and floored, a rejection with no wait never kept, an expired
 * block dropped when looked up, a block remembered again made the newest,
 * and `forget` dropping one counter key's blocks only.
 */
import { describe, expect, it } from "vitest";
import type { CounterVerdict } from "../../src/stored/wire-calls.ts";
import { blockBytes, BlockCache } from "../../src/isolate/block-cache.ts";

const rejected = (retryAfterMs: number, resetAfterMs = 5_000, effectiveWindowMs = 5_000): CounterVerdict => ({
  allowed: false,
  decisions: [{ allowed: false, limit: 10, remaining: 0, resetAfterMs, retryAfterMs, effectiveWindowMs }],
});

describe("certain-block cache, exactly", () => {
  it("ages every time from the answer's arrival, never below 0 (reset) or 1 ms (windows)", () => {
    const cache = new BlockCache();
    cache.remember("k", rejected(1_000), 0, 10);
    expect(cache.lookup("k", 500)?.decisions[0]).toMatchObject({ resetAfterMs: 4_510, retryAfterMs: 510, effectiveWindowMs: 4_510 });
    cache.remember("short", rejected(1_000, 100, 100), 0, 0);
    expect(cache.lookup("short", 900)?.decisions[0]).toMatchObject({ resetAfterMs: 0, retryAfterMs: 100, effectiveWindowMs: 1 });
  });

  it("keeps no rejection without a wait, and drops an expired block when it is looked up", () => {
    const cache = new BlockCache();
    cache.remember("none", rejected(0), 0, 0);
    expect(cache.size).toBe(0);
    cache.remember("k", rejected(100), 0, 0);
    expect(cache.size).toBe(1);
    expect(cache.lookup("k", 100)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it("makes a block remembered again the newest, so the oldest other goes first", () => {
    const cache = new BlockCache(2 * blockBytes("a", rejected(1_000)));
    cache.remember("a", rejected(1_000), 0, 0);
    cache.remember("b", rejected(1_000), 0, 0);
    cache.remember("a", rejected(1_000), 1, 1);
    cache.remember("c", rejected(1_000), 1, 1);
    expect([cache.lookup("a", 2) !== undefined, cache.lookup("b", 2) !== undefined, cache.lookup("c", 2) !== undefined]).toEqual([true, false, true]);
  });

  it("forgets one counter key's blocks, whatever their cost and limits, and no other key's", () => {
    const cache = new BlockCache();
    for (const key of ["k\u00011\u0001a", "k\u00012\u0001a\u0001b", "k2\u00011\u0001a", "kk\u00011"]) cache.remember(key, rejected(1_000), 0, 0);
    cache.forget("k");
    expect(cache.size).toBe(2);
    expect(cache.lookup("k2\u00011\u0001a", 1)).toBeDefined();
    expect(cache.lookup("kk\u00011", 1)).toBeDefined();
  });
});
