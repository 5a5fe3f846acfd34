// Checkpointed counters (docs/reliability.md, "Durability"): windows of a minute or longer
// are written at most persist_ms after a change, one row per changed counter;
// strict ones before the answer; memory is a bounded cache over storage.
import { env } from "cloudflare:workers";
import { evictAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { getAlgorithm } from "../../src/algorithms/index.ts";
import type { Env } from "../../src/config.ts";
import { APPLIED_IDS_BYTES } from "../../src/durable/counters/applied-ids.ts";
import { CounterCache, MEMORY_BYTES, UNWRITTEN_MIN_LIMIT } from "../../src/durable/counters/counter-cache.ts";
import { LEASE_BOOK_BYTES } from "../../src/durable/counters/leases/leases.ts";
import { type CounterObject, QUIET_WRITE_MS } from "../../src/durable/counters/counter-object.ts";
import { CounterStore } from "../../src/durable/counters/counter-store.ts";
import type { LimitCall } from "../../src/stored/wire-calls.ts";
import { hit, minute as anyMinute } from "../support/limits.ts";
import { driveObject, OBJECT_EPOCH } from "../support/driven-object.ts";
import { COUNTER_TABLES } from "../../src/stored/counter-tables.ts";
import { hasTable, makeTables, rowsIf } from "../support/stored-tables.ts";

const counters = (env as unknown as Env).COUNTERS;
/**
 * A one-minute window whose every change is written (a burst under UNWRITTEN_MIN_LIMIT; a fixed window reads only its
 * limit): the few hits these tests take are no small counter left to the spill (test/durable/unwritten.test.ts).
 */
const minute = (extra: Partial<LimitCall> = {}): LimitCall => anyMinute({ burst: UNWRITTEN_MIN_LIMIT - 1, ...extra });
let unique = 0;
const fresh = (name: string) => `checkpoint-${name}-${Date.now()}-${unique++}`;

/** The counters in the object's storage (rows of their own and journal entries), read directly (no call to the object). */
const rows = (stub: DurableObjectStub<CounterObject>) =>
  runInDurableObject(stub, (_o: CounterObject, state) => {
    const ids = rowsIf<{ id: string }>(state.storage.sql, "counters", "SELECT id FROM counters").map((r) => r.id);
    for (const { body } of rowsIf<{ body: string }>(state.storage.sql, "journal", "SELECT body FROM journal"))
      for (const [id] of JSON.parse(body) as [string][]) ids.push(id);
    return ids.sort().map((id) => ({ id }));
  });
/** Write a counter's row straight into the object's storage, behind its back (a probe of what it holds in memory). */
const writeBehind = (stub: DurableObjectStub<CounterObject>, key: string, limit: LimitCall, state: unknown) =>
  runInDurableObject(stub, (_o: CounterObject, s) => {
    makeTables(s.storage.sql, COUNTER_TABLES);
    s.storage.sql.exec(
      "INSERT OR REPLACE INTO counters (id, state, idle_at) VALUES (?, ?, ?)",
      `${key}\u0001${limit.id}`,
      JSON.stringify(state),
      OBJECT_EPOCH + 7_200_000,
    );
  });
const remaining = async (name: string, key: string, limit: LimitCall) => (await counters.getByName(name).peek(hit(key, limit, 0))).decisions[0].remaining;

describe("checkpointed counters", () => {
  it("write a changed counter once per checkpoint, not once per hit, with the alarm set persist_ms after the change", async () => {
    const name = fresh("timing");
    const stub = counters.getByName(name);
    // The object on the test's clock, standing still: no checkpoint can fall inside the test.
    const now = OBJECT_EPOCH + 2_500;
    await driveObject(stub, () => now);
    // An hour's window, so that its end (when the counter is idle and a sweep is due) comes after the checkpoint.
    // A limit of 1,000: its first 10 hits are a small counter (no checkpoint of their own), the rest wait for one.
    const limit = anyMinute({ id: "fw-1h", windowMs: 3_600_000, persistMs: 60_000 });
    const start = await stub.stats();
    for (let i = 0; i < 50; i++) await stub.decide([hit("k", limit)]);
    const during = await stub.stats();
    expect(during.rowsWritten - start.rowsWritten).toBe(0);
    expect(during.stored).toBe(0);
    // The alarm is set persist_ms after the first change, or QUIET_WRITE_MS after the last call if sooner (before an idle eviction).
    const alarm = await runInDurableObject(stub, (_o: CounterObject, state) => state.storage.getAlarm());
    expect(alarm).toBe(now + QUIET_WRITE_MS);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const checkpointed = await stub.stats();
    expect(checkpointed.stored).toBe(1);
    // One row (and its idle_at index entry): SQLite counts both; far from 50.
    expect(checkpointed.rowsWritten - start.rowsWritten).toBeLessThanOrEqual(4);
    await evictAllDurableObjects();
    // Restarted, the object is back on its own clock: put it on the test's again to read the window it wrote.
    await driveObject(counters.getByName(name), () => now);
    expect(await remaining(name, "k", limit)).toBe(1_000 - 50);
  });

  // Storage is read directly (no call to the object in between), so the alarm's write is told from a call's; the
  // object runs on a clock the test sets. Breaks tried: alarm() without its checkpoint (no row after the alarm), and
  // the checkpoint due 2 × persist_ms after a change (the alarm set too late).
  it("have written a change when persist_ms has passed: by the alarm set for then, with no call", async () => {
    const name = fresh("due");
    const stub = counters.getByName(name);
    let now = OBJECT_EPOCH;
    await driveObject(stub, () => now);
    const limit = minute({ persistMs: 200 });
    // A change after a quiet spell is written at once (see the test below); one 50 ms later waits for its checkpoint.
    await stub.decide([hit("before", limit, 3)]);
    expect(await rows(stub)).toEqual([{ id: "before\u0001fw-1m" }]);
    now += 50;
    await stub.decide([hit("k", limit, 3)]);
    expect(await rows(stub)).toEqual([{ id: "before\u0001fw-1m" }]);
    const alarm = await runInDurableObject(stub, (_o: CounterObject, state) => state.storage.getAlarm());
    expect(alarm).toBe(OBJECT_EPOCH + 250);
    now = OBJECT_EPOCH + 250;
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await rows(stub)).toEqual([{ id: "before\u0001fw-1m" }, { id: "k\u0001fw-1m" }]);
    const stored = await runInDurableObject(stub, (_o: CounterObject, state) => {
      const cache = new CounterCache(new CounterStore(state.storage.sql));
      cache.restore(now);
      return cache.read("k\u0001fw-1m", limit);
    });
    expect(stored).toEqual(getAlgorithm("fixed_window").decide(undefined, limit, OBJECT_EPOCH + 50, 3).state);
  });

  // Break tried: writeThrough() always false (the first change waits for an alarm: a setAlarm more).
  it("write a change that comes after a quiet spell at once, where waiting would cost a setAlarm and the same row", async () => {
    const stub = counters.getByName(fresh("through"));
    let now = OBJECT_EPOCH;
    await driveObject(stub, () => now);
    const limit = minute({ persistMs: 200 });
    await stub.decide([hit("k", limit, 3)]);
    expect(await rows(stub)).toEqual([{ id: "k\u0001fw-1m" }]);
    // Nothing unsaved: no alarm is set for a checkpoint (only the sweep's, once the object has gone quiet).
    expect(await runInDurableObject(stub, (_o: CounterObject, state) => state.storage.getAlarm())).toBe(OBJECT_EPOCH + 60_000);
    // The next change, 200 ms on, came after a whole persist window without one: written at once too.
    now += 200;
    await stub.decide([hit("k", limit, 1)]);
    now += 1;
    const read = await runInDurableObject(stub, (_o: CounterObject, state) => {
      const cache = new CounterCache(new CounterStore(state.storage.sql));
      cache.restore(now);
      return cache.read("k\u0001fw-1m", limit);
    });
    expect(read).toEqual(getAlgorithm("fixed_window").decide(undefined, limit, OBJECT_EPOCH, 4).state);
  });

  it("have written a change when persist_ms has passed: by the next call, if it comes before the alarm", async () => {
    const stub = counters.getByName(fresh("due-call"));
    let now = OBJECT_EPOCH;
    await driveObject(stub, () => now);
    const limit = minute({ persistMs: 200 });
    // A change after a quiet spell is written at once: one first, so that k's waits.
    await stub.decide([hit("before", limit, 3)]);
    now += 1;
    await stub.decide([hit("k", limit, 3)]);
    now += 199;
    await stub.decide([hit("other", minute({ id: "fw-other", persistMs: 60_000 }))]);
    expect(await rows(stub)).toEqual([{ id: "before\u0001fw-1m" }]);
    now += 1;
    await stub.decide([hit("other", minute({ id: "fw-other", persistMs: 60_000 }))]);
    expect((await rows(stub)).map((r) => r.id).sort()).toEqual(["before\u0001fw-1m", "k\u0001fw-1m", "other\u0001fw-other"]);
  });

  it("are checkpointed by the alarm when traffic stops, so a restart finds them", async () => {
    const name = fresh("alarm");
    const stub = counters.getByName(name);
    // One change first (written at once, after a quiet spell), so the batch below waits for its checkpoint.
    await stub.decide([hit("first", minute(), 1)]);
    await stub.decide([hit("a", minute(), 7), hit("b", minute({ id: "fw-1h", windowMs: 3_600_000 }), 2)]);
    expect((await stub.stats()).stored).toBe(1);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect((await stub.stats()).stored).toBe(3);
    await evictAllDurableObjects();
    expect(await remaining(name, "a", minute())).toBe(993);
    expect(await remaining(name, "b", minute({ id: "fw-1h", windowMs: 3_600_000 }))).toBe(998);
  });

  it("lose at most the hits since the last checkpoint when the object dies", async () => {
    const name = fresh("crash");
    const stub = counters.getByName(name);
    await stub.decide([hit("k", minute(), 5)]);
    await runDurableObjectAlarm(stub);
    await stub.decide([hit("k", minute(), 3)]);
    await evictAllDurableObjects();
    // The 5 checkpointed hits survive; the 3 of the last persist_ms are the loss the docs state.
    expect(await remaining(name, "k", minute())).toBe(995);
  });

  it("with durability strict, write every change before its answer", async () => {
    const name = fresh("strict");
    const stub = counters.getByName(name);
    const strict = minute({ strict: true });
    for (let i = 1; i <= 3; i++) {
      await stub.decide([hit("k", strict)]);
      await evictAllDurableObjects();
      expect(await remaining(name, "k", strict)).toBe(1_000 - i);
    }
  });

  it("keep memory within MEMORY_BYTES under a key scan, and read paged-out counters back exactly", async () => {
    const name = fresh("scan");
    const stub = counters.getByName(name);
    const hour = minute({ id: "fw-1h", windowMs: 3_600_000, limit: 10 });
    // Keys of 1 KB, so the scan passes the budget in a few thousand keys.
    const pad = "k".repeat(1_000);
    const keys = Math.ceil(MEMORY_BYTES / 2_000) + 2_000;
    for (let from = 0; from < keys; from += 500) {
      await stub.decide(Array.from({ length: Math.min(500, keys - from) }, (_, i) => hit(`${pad}-${from + i}`, hour, 1 + ((from + i) % 3))));
    }
    const stats = await stub.stats();
    expect(stats.memoryBytes).toBeLessThanOrEqual(MEMORY_BYTES);
    // The first keys were paged out (written first: nothing lost) and come back on their next hit.
    expect(stats.stored).toBeGreaterThanOrEqual(keys - stats.memory);
    expect(stats.memory).toBeLessThan(keys);
    const [back] = await stub.decide([hit(`${pad}-0`, hour)]);
    expect(back.decisions[0].remaining).toBe(10 - 1 - 1);
    const again = await stub.decide([hit(`${pad}-1`, hour), hit(`${pad}-2`, hour)]);
    expect(again.map((v) => v.decisions[0].remaining)).toEqual([10 - 2 - 1, 10 - 3 - 1]);
  });

  // Scans that only read, that are only refused, and of sliding logs: memory stays within MEMORY_BYTES by the public
  // stats, and, seen from outside, the first key was really paged out: a row the test then writes behind the object's
  // back is what its next hit finds (a counter still in memory would hide it). Breaks tried: "known not stored"
  // markers weighing nothing, and sliding logs weighed without their entries: the first key's old state was still in
  // memory after each scan.
  const pad = "p".repeat(1_000);
  for (const scan of ["reads", "refusals"] as const) {
    it(`keep memory within MEMORY_BYTES under a scan of ${scan}, "known not stored" markers included`, async () => {
      const stub = counters.getByName(fresh(`scan-${scan}`));
      const now = OBJECT_EPOCH;
      await driveObject(stub, () => now);
      const hour = minute({ id: "fw-1h", windowMs: 3_600_000, limit: 10 });
      // Each marker weighs over 2,000 bytes (its id, two bytes a character): more keys than the budget holds.
      const keys = Math.ceil(MEMORY_BYTES / 2_000) + 1_000;
      for (let from = 0; from < keys; from += 1_000) {
        const verdicts = await stub.decide(Array.from({ length: 1_000 }, (_, i) => hit(`scan-${from + i}-${pad}`, hour, scan === "reads" ? 0 : 11)));
        expect(verdicts.every((v) => v.allowed === (scan === "reads"))).toBe(true);
      }
      const stats = await stub.stats();
      expect(stats.memoryBytes).toBeLessThanOrEqual(MEMORY_BYTES);
      // The windows' share: the lease book's LEASE_BOOK_BYTES and the applied ids' APPLIED_IDS_BYTES are taken off MEMORY_BYTES.
      expect(stats.memoryBytes).toBeGreaterThan((MEMORY_BYTES - LEASE_BOOK_BYTES - APPLIED_IDS_BYTES) * 0.9);
      expect(stats.stored).toBe(0);
      await writeBehind(stub, `scan-0-${pad}`, hour, getAlgorithm("fixed_window").decide(undefined, hour, now, 10).state);
      expect((await stub.decide([hit(`scan-0-${pad}`, hour, 0)]))[0].decisions[0].remaining).toBe(0);
    });
  }

  // 160,000 hits: a 120 s timeout (30 s was outlasted on a loaded machine); it asserts no time.
  it("keep memory within MEMORY_BYTES under a scan of sliding logs, weighed by their entries", async () => {
    const stub = counters.getByName(fresh("scan-logs"));
    let now = OBJECT_EPOCH;
    await driveObject(stub, () => now);
    const log = minute({ id: "swl-1h", algorithm: "sliding_window_log", windowMs: 3_600_000, limit: 100, burst: 100 });
    // Eight hits a key at eight instants: eight log entries. Fewer keys than fit the budget weighed without their
    // entries, more than fit it weighed with them.
    const keys = 20_000;
    for (let round = 0; round < 8; round++, now += 1_000) {
      for (let from = 0; from < keys; from += 2_000) await stub.decide(Array.from({ length: 2_000 }, (_, i) => hit(`log-${from + i}`, log)));
    }
    expect((await stub.stats()).memoryBytes).toBeLessThanOrEqual(MEMORY_BYTES);
    // The last key is in memory with its eight hits; the first was paged out (written first: nothing lost).
    expect((await stub.decide([hit(`log-${keys - 1}`, log, 0)]))[0].decisions[0].remaining).toBe(100 - 8);
    await writeBehind(stub, "log-0", log, getAlgorithm("sliding_window_log").decide(undefined, log, now, 1).state);
    expect((await stub.decide([hit("log-0", log, 0)]))[0].decisions[0].remaining).toBe(100 - 1);
  }, 120_000);

  // Breaks tried: checkpoint() saving each counter to a row of its own (3 and more rows where 1 is expected), and
  // a row read back from an older deploy journaled instead of saved to its row (the journal's row where "state" is).
  it("write one journal row per checkpoint however many counters changed; a counter with a row of its own, that row's state alone", async () => {
    const stub = counters.getByName(fresh("rows"));
    await runInDurableObject(stub, (_o: CounterObject, state) => {
      // The tables as an object has them after its first checkpoint (making them is rows of their own: lazy-table.ts).
      makeTables(state.storage.sql, COUNTER_TABLES);
      const store = new CounterStore(state.storage.sql);
      const cache = new CounterCache(store);
      // Below UNWRITTEN_MIN_LIMIT, so its one-hit counters are written too (test/durable/unwritten.test.ts has the others).
      const limit = minute({ limit: 50, burst: 50 });
      const fixed = getAlgorithm("fixed_window");
      const start = 1_800_000_000_000 - (1_800_000_000_000 % 60_000);
      // A row as counter tables version 2 wrote it.
      store.save("old\u0001fw-1m", fixed.decide(undefined, limit, start, 1).state, start + 60_000);
      const written = (ids: string[], hitAt: number) => {
        const before = store.rowsWritten;
        for (const id of ids) cache.write(id, limit, fixed.decide(cache.read(id, limit), limit, hitAt, 1).state, hitAt);
        cache.checkpoint(hitAt);
        return store.rowsWritten - before;
      };
      const keys = Array.from({ length: 20 }, (_, i) => `k${i}\u0001fw-1m`);
      expect(written(keys, start + 1_000)).toBe(1);
      expect(written(keys.slice(0, 5), start + 2_000)).toBe(1);
      // A new window moves every idle time: still the one row.
      expect(written(keys, start + 61_000)).toBe(1);
      // The old row keeps its row: the state alone, no index entry.
      expect(written(["old\u0001fw-1m"], start + 3_000)).toBe(1);
      expect(store.readJournal().flatMap(([, entries]) => entries.map(([id]) => id))).toEqual(keys);
      // Read back from storage alone, exactly.
      const again = new CounterCache(store);
      again.restore(start + 61_000);
      for (const id of [...keys, "old\u0001fw-1m"]) expect(again.read(id, limit)).toEqual(cache.read(id, limit));
    });
  });

  it("decide exactly as an unbounded memory would, however small the cache (property, real SQLite)", async () => {
    const stub = counters.getByName(fresh("property"));
    await runInDurableObject(stub, (_o: CounterObject, state) => {
      const limits = [minute({ limit: 20, burst: 20 }), minute({ id: "tb-1h", algorithm: "token_bucket", limit: 30, windowMs: 3_600_000, burst: 12 })];
      let run = 0;
      fc.assert(
        fc.property(
          // Bytes: from less than one entry to a few entries.
          fc.integer({ min: 1, max: 1_500 }),
          fc.array(
            fc.record({
              key: fc.integer({ min: 0, max: 12 }),
              limit: fc.integer({ min: 0, max: 1 }),
              cost: fc.integer({ min: 1, max: 4 }),
              gap: fc.integer({ min: 0, max: 30_000 }),
            }),
            {
              maxLength: 80,
            },
          ),
          (capacity, hits) => {
            // One memory over the storage at a time, as in an object: the journal of the run before is not this one's.
            if (hasTable(state.storage.sql, "journal")) state.storage.sql.exec("DELETE FROM journal");
            const cache = new CounterCache(new CounterStore(state.storage.sql), capacity);
            const oracle = new Map<string, unknown>();
            const prefix = `p${run++}-`;
            let now = 1_800_000_000_000;
            for (const h of hits) {
              now += h.gap;
              const limit = limits[h.limit];
              const id = `${prefix}${h.key}\u0001${limit.id}`;
              const got = getAlgorithm(limit.algorithm).decide(cache.read(id, limit), limit, now, h.cost);
              const want = getAlgorithm(limit.algorithm).decide(oracle.get(id), limit, now, h.cost);
              if (JSON.stringify(got) !== JSON.stringify(want)) return false;
              if (want.decision.allowed) {
                cache.write(id, limit, got.state, now);
                oracle.set(id, want.state);
              }
              // Over the budget only while holding the one entry just written.
              if (cache.bytes > capacity && cache.size > 1) return false;
              if (h.gap % 3 === 0) cache.checkpoint();
            }
            // What was written, by checkpoints and by paging out, reads back exactly in a fresh memory.
            cache.checkpoint();
            const after = new CounterCache(new CounterStore(state.storage.sql), capacity);
            after.restore(now);
            for (const [id, want] of oracle) {
              const limit = limits[id.endsWith(limits[0].id) ? 0 : 1];
              // As a decision sees it: a window idle by now may come back as fresh, which decides the same.
              const algorithm = getAlgorithm(limit.algorithm);
              const read = (state: unknown) => JSON.stringify(algorithm.decide(state, limit, now, 0).decision);
              if (read(after.read(id, limit)) !== read(want)) return false;
            }
            return true;
          },
        ),
        { numRuns: 60, seed: 17 },
      );
    });
  });
});
