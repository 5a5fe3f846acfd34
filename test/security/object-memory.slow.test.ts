// One counter object's memory under a scan of long keys (docs/reliability.md,
// "Bounded memory"): the cache weighs windows, ids and "not stored" markers in
// bytes, so keys of 4 KB cannot take an object past MEMORY_BYTES whatever
// their number. Break tried: paging out by entry count (20,000 entries, as
// before) instead of bytes; each scan below then holds all its keys and the
// reported bytes go past the budget several times over.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/config.ts";
import { MEMORY_BYTES } from "../../src/durable/counters/counter-cache.ts";
import type { CounterCall, LimitCall } from "../../src/stored/wire-calls.ts";

const counters = (env as unknown as Env).COUNTERS;
let unique = 0;
const stubOf = (name: string) => counters.getByName(`object-memory-${name}-${Date.now()}-${unique++}`);
const limit = (windowMs: number, algorithm: LimitCall["algorithm"] = "sliding_window_log"): LimitCall => ({
  id: `m-${windowMs}`,
  algorithm,
  limit: 100,
  windowMs,
  burst: 100,
});
// A 4 KB key: a JSON counter key around a long descriptor value, as an attacker's header would make.
const longKey = (i: number) => JSON.stringify(["api", ["api_key", `${"x".repeat(4_096)}-${i}`]]);
// Enough 4 KB keys to fill the budget three times over (each takes over 8 KB as a key and an id).
const KEYS = Math.ceil((3 * MEMORY_BYTES) / 8_192);
const BATCH = 250;

async function scan(stub: ReturnType<typeof stubOf>, call: (i: number) => CounterCall, peek = false): Promise<number> {
  let peak = 0;
  for (let from = 0; from < KEYS; from += BATCH) {
    const calls = Array.from({ length: Math.min(BATCH, KEYS - from) }, (_, k) => call(from + k));
    if (peek) for (const c of calls) await stub.peek(c);
    else await stub.decide(calls);
    peak = Math.max(peak, (await stub.stats()).memoryBytes);
  }
  return peak;
}

describe("one counter object under a scan of 4 KB keys", () => {
  it("keeps stored windows (1 hour) within MEMORY_BYTES, paging the oldest out and reading them back exactly", async () => {
    const stub = stubOf("hour");
    const hour = limit(3_600_000);
    const peak = await scan(stub, (i) => ({ key: longKey(i), limits: [hour], cost: 1 + (i % 3) }));
    expect(peak).toBeGreaterThan(MEMORY_BYTES / 2); // the scan did fill memory, so the bound below is the cache's
    expect(peak).toBeLessThanOrEqual(MEMORY_BYTES);
    const stats = await stub.stats();
    expect(stats.memory).toBeLessThan(KEYS / 2);
    // Every key left memory written: the ones paged out are stored, the rest are in memory.
    expect(stats.stored).toBeGreaterThanOrEqual(KEYS - stats.memory);
    // The first keys left memory long ago; their next hit reads them back exactly (a sliding log: every entry).
    const [first, second] = await stub.decide([
      { key: longKey(0), limits: [hour], cost: 1 },
      { key: longKey(1), limits: [hour], cost: 1 },
    ]);
    expect([first.decisions[0].remaining, second.decisions[0].remaining]).toEqual([100 - 1 - 1, 100 - 2 - 1]);
  });

  it("keeps short windows (1 second, memory only) within MEMORY_BYTES", async () => {
    const stub = stubOf("second");
    const second = limit(1_000, "sliding_window_counter");
    const peak = await scan(stub, (i) => ({ key: longKey(i), limits: [second], cost: 1 }));
    expect(peak).toBeGreaterThan(MEMORY_BYTES / 2);
    expect(peak).toBeLessThanOrEqual(MEMORY_BYTES);
    expect((await stub.stats()).stored).toBe(0);
  });

  it("counts the markers of keys read and found not stored: a scan of reads stays within MEMORY_BYTES too", async () => {
    const stub = stubOf("peek");
    const hour = limit(3_600_000);
    const peak = await scan(stub, (i) => ({ key: longKey(i), limits: [hour], cost: 0 }), true);
    expect(peak).toBeGreaterThan(MEMORY_BYTES / 2);
    expect(peak).toBeLessThanOrEqual(MEMORY_BYTES);
    const stats = await stub.stats();
    expect(stats.memory).toBe(0);
    expect(stats.stored).toBe(0);
  });
});
