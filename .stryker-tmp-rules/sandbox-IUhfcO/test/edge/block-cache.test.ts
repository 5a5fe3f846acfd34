// @ts-nocheck
import { describe, expect, it } from "vitest";
import type { CounterVerdict } from "../../src/durable/protocol.ts";
import { BlockCache } from "../../src/edge/block-cache.ts";

const decision = (allowed: boolean, retryAfterMs: number, remaining = 0) => ({
  allowed,
  limit: 10,
  remaining,
  resetAfterMs: 5_000,
  retryAfterMs,
  effectiveWindowMs: 5_000,
});
const rejected = (retryAfterMs: number): CounterVerdict => ({ allowed: false, decisions: [decision(false, retryAfterMs)] });

describe("certain-block cache", () => {
  it("blocks until exactly sentAt + retry-after, not a millisecond longer", () => {
    const cache = new BlockCache();
    cache.remember("k", rejected(1_000), 10_000, 10_004);
    expect(cache.lookup("k", 10_999)?.allowed).toBe(false);
    expect(cache.lookup("k", 11_000)).toBeUndefined();
  });

  it("reports Retry-After from the answer's arrival, so it is never earlier than the object's T", () => {
    const cache = new BlockCache();
    cache.remember("k", rejected(1_000), 10_000, 10_004);
    expect(cache.lookup("k", 10_500)?.decisions[0].retryAfterMs).toBe(504);
  });

  it("takes the longest wait of the rejecting windows and keeps allowed windows' figures", () => {
    const cache = new BlockCache();
    cache.remember("k", { allowed: false, decisions: [decision(true, 0, 7), decision(false, 300), decision(false, 900)] }, 0, 0);
    const cached = cache.lookup("k", 100)!;
    expect(cached.decisions.map((d) => d.retryAfterMs)).toEqual([0, 200, 800]);
    expect(cached.decisions[0].remaining).toBe(7);
    expect(cache.lookup("k", 899)).toBeDefined();
    expect(cache.lookup("k", 900)).toBeUndefined();
  });

  it("never caches allowed answers or rejections that can never pass", () => {
    const cache = new BlockCache();
    cache.remember("a", { allowed: true, decisions: [decision(true, 0, 3)] }, 0, 0);
    cache.remember("b", rejected(Infinity), 0, 0);
    expect(cache.size).toBe(0);
  });

  it("holds the documented 10,000 blocks per isolate by default, the oldest going first", () => {
    const cache = new BlockCache();
    for (let i = 0; i <= 10_000; i++) cache.remember(`k${i}`, rejected(1_000), 0, 0);
    expect(cache.size).toBe(10_000);
    expect(cache.lookup("k0", 1)).toBeUndefined();
    expect(cache.lookup("k1", 1)).toBeDefined();
    expect(cache.lookup("k10000", 1)).toBeDefined();
  });

  it("stays bounded, evicting the oldest block", () => {
    const cache = new BlockCache(3);
    for (const key of ["a", "b", "c", "d"]) cache.remember(key, rejected(1_000), 0, 0);
    expect(cache.size).toBe(3);
    expect(cache.lookup("a", 1)).toBeUndefined();
    expect(cache.lookup("d", 1)).toBeDefined();
  });
});
