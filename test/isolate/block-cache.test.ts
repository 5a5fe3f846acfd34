import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/config.ts";
import type { CounterVerdict, LimitCall } from "../../src/stored/wire-calls.ts";
import { BLOCK_CACHE_BYTES, BLOCK_CACHE_HOLD_MS, BlockCache } from "../../src/isolate/block-cache.ts";
import { PrecountTable } from "../../src/isolate/precount.ts";
import { EdgeRuntime } from "../../src/isolate/runtime.ts";
import { drivenTime } from "../support/driven-time.ts";
import { driveObject, OBJECT_EPOCH } from "../support/driven-object.ts";

const counters = (env as unknown as Env).COUNTERS;

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

  it("answers a long block for the hold only, then asks the object again; Retry-After stays the object's", () => {
    const cache = new BlockCache();
    const dayMs = 86_400_000;
    cache.remember("k", rejected(dayMs), 10_000, 10_000);
    expect(cache.lookup("k", 10_000 + BLOCK_CACHE_HOLD_MS - 1)?.decisions[0].retryAfterMs).toBe(dayMs - BLOCK_CACHE_HOLD_MS + 1);
    expect(cache.lookup("k", 10_000 + BLOCK_CACHE_HOLD_MS)).toBeUndefined();
  });

  it("never caches allowed answers or rejections that can never pass", () => {
    const cache = new BlockCache();
    cache.remember("a", { allowed: true, decisions: [decision(true, 0, 3)] }, 0, 0);
    cache.remember("b", rejected(Infinity), 0, 0);
    expect(cache.size).toBe(0);
  });

  it("holds over 9,000 blocks of short keys by default", () => {
    const cache = new BlockCache();
    for (let i = 0; i < 9_000; i++) cache.remember(`["api",["remote_address","198.51.100.${i}"]]\u0001swc:60:60000:60|1`, rejected(1_000), 0, 0);
    expect(cache.size).toBe(9_000);
  });

  // Break tried: evicting by count (10,000 blocks, as before): 4 KB keys then hold about 80 MB and the bytes check fails.
  it("weighs blocks by their bytes: 4 KB keys stay within BLOCK_CACHE_BYTES, the oldest going first", () => {
    const cache = new BlockCache();
    const key = (i: number) => `${"x".repeat(4_096)}-${i}`;
    const keys = 10_000;
    for (let i = 0; i < keys; i++) cache.remember(key(i), rejected(1_000), 0, 0);
    expect(cache.bytes).toBeLessThanOrEqual(BLOCK_CACHE_BYTES);
    expect(cache.bytes).toBeGreaterThan(BLOCK_CACHE_BYTES - 10_000);
    expect(cache.size).toBeLessThan(keys / 10);
    expect(cache.lookup(key(0), 1)).toBeUndefined();
    expect(cache.lookup(key(keys - 1), 1)).toBeDefined();
  });

  it("stays bounded, evicting the oldest block", () => {
    const one = new BlockCache();
    one.remember("a", rejected(1_000), 0, 0);
    const cache = new BlockCache(3.5 * one.bytes);
    for (const key of ["a", "b", "c", "d"]) cache.remember(key, rejected(1_000), 0, 0);
    expect(cache.size).toBe(3);
    expect(cache.lookup("a", 1)).toBeUndefined();
    expect(cache.lookup("d", 1)).toBeDefined();
    expect(cache.bytes).toBe(3 * one.bytes);
  });
});

describe("certain-block cache in front of a real object with leases out", () => {
  // Docs/precount.md: a refusal caused only by pre-counting leases is provisional and never cached, since the quota
  // may come back before its Retry-After. Break tried: BlockCache.remember without the `provisional` check: the
  // repeat after the lease came back was answered 429 from the cache.
  it("does not turn a refusal the leases alone caused into a cached 429", async () => {
    const time = drivenTime(OBJECT_EPOCH);
    try {
      const key = `block-lease-${Math.random()}`;
      const name = `block-obj-${key}`;
      await driveObject(counters.getByName(name), time.now);
      const limits: LimitCall[] = [{ id: "block-lease-10", algorithm: "fixed_window", limit: 10, windowMs: 3_600_000, burst: 10 }];
      const S = 25;
      // Isolate B pre-counts the counter: its second hit at once takes a lease.
      const background: Promise<unknown>[] = [];
      const b = new PrecountTable(
        time.track((n, calls) => counters.getByName(n).decide(calls)),
        time.now,
      );
      for (let i = 0; i < 2; i++) await b.decide(name, { key, cost: 1, limits }, S, (p) => void background.push(p));
      // Isolate A decides strongly, through its edge runtime and block cache: all that is free as charged.
      const a = new EdgeRuntime(counters, { now: time.now, coalesce: false });
      const all = { call: { key, cost: 8, limits }, cacheable: true };
      const [refused] = await a.decideCalls(name, [all], () => undefined);
      expect(refused.allowed).toBe(false);
      expect(refused.provisional).toBe(true);
      expect(a.blocks.size).toBe(0);
      // B takes no more hits: a sync period later it gives its lease back, long before the refusal's Retry-After.
      let quiet = false;
      void Promise.allSettled(background).then(() => (quiet = true));
      while (!quiet) await time.advance(S);
      expect(time.now()).toBeLessThan(OBJECT_EPOCH + refused.decisions[0].retryAfterMs);
      const [again] = await a.decideCalls(name, [all], () => undefined);
      expect(a.stats.cachedBlocks).toBe(0);
      expect(again.allowed).toBe(true);
    } finally {
      time.stop();
    }
  });
});
