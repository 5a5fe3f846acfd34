/**
 * Stored formats as real objects hold them (docs/stored-formats.md): the
 * SQLite schema a CounterObject creates and the rows it writes for fixed
 * calls at a fixed instant, and the rows a MetricsObject writes for a fixed
 * traffic batch, byte for byte; and the wire version, through a
 * real object: a caller with no version (an older deploy's) is answered, one
 * with a version the object does not read is refused, by name, with nothing
 * decided.
 *
 * Breaks tried, each seen to fail here: a field added to the fixed window's
 * stored state; `wireRefusal` accepting any number (the version-2 batch was
 * decided); `decideText` parsing the text before checking
 * the version (a newer caller's malformed text threw a SyntaxError, not the
 * version's refusal).
 */
import { env } from "cloudflare:workers";
import { evictAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/config.ts";
import { type CounterObject, DELETE_IDLE_MS } from "../../src/durable/counters/counter-object.ts";
import { limitId, storageId } from "../../src/stored/counter-ids.ts";
import { BLOCK_TABLES, COUNTER_TABLES, SLOT_TABLES } from "../../src/stored/counter-tables.ts";
import type { CounterCall, CounterVerdict, LimitCall } from "../../src/stored/wire-calls.ts";
import { fromWire, toWire, verdictsFromWire, WIRE_VERSION } from "../../src/stored/wire.ts";
import { driveObject, OBJECT_EPOCH } from "../support/driven-object.ts";
import { makeTables, rowsIf } from "../support/stored-tables.ts";

const counters = (env as unknown as Env).COUNTERS;
const ALGORITHMS = ["token_bucket", "leaky_bucket", "fixed_window", "sliding_window_log", "sliding_window_counter", "gcra"] as const;
const limitOf = (algorithm: (typeof ALGORITHMS)[number]): LimitCall => ({
  id: limitId(algorithm, 10, 60_000, 10),
  algorithm,
  limit: 10,
  windowMs: 60_000,
  burst: 10,
});
let n = 0;

describe("a CounterObject's SQLite", () => {
  it("has exactly this schema, and these rows for fixed calls at a fixed instant", async () => {
    const stub = counters.getByName(`stored-golden/${++n}-${Date.now()}`);
    await driveObject(stub, () => OBJECT_EPOCH);
    const key = '["golden",["user","u1"]]';
    await stub.decide([{ key, cost: 3, limits: ALGORITHMS.map(limitOf) }]);
    const stored = await runInDurableObject(stub, (o: CounterObject, state) => {
      (o as unknown as { cache: { checkpoint(): void } }).cache.checkpoint();
      const schema = state.storage.sql
        .exec<{ type: string; name: string; sql: string | null }>(
          "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE '\\_%' ESCAPE '\\' ORDER BY name",
        )
        .toArray();
      const rows = rowsIf<{ id: string; state: string; idle_at: number }>(state.storage.sql, "counters", "SELECT id, state, idle_at FROM counters ORDER BY id");
      const journal = state.storage.sql.exec<{ part: number; body: string }>("SELECT part, body FROM journal ORDER BY part").toArray();
      return { schema, rows, journal };
    });
    // Each table is made by its first write (src/durable/counters/lazy-table.ts): a checkpoint, the journal alone.
    // Break tried: LazyTable making its table when constructed (every table here, as before).
    expect(stored.schema).toEqual([{ type: "table", name: "journal", sql: "CREATE TABLE journal (part INTEGER PRIMARY KEY, body TEXT NOT NULL)" }]);
    // Every table an object may make, as it makes it.
    const all = await runInDurableObject(stub, (_: CounterObject, state) => {
      makeTables(state.storage.sql, [...COUNTER_TABLES, ...SLOT_TABLES, ...BLOCK_TABLES]);
      return state.storage.sql
        .exec<{ type: string; name: string; sql: string | null }>(
          "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE '\\_%' ESCAPE '\\' ORDER BY name",
        )
        .toArray();
    });
    expect(all).toEqual([
      {
        type: "table",
        name: "blocks",
        sql: "CREATE TABLE blocks (id TEXT PRIMARY KEY, until INTEGER NOT NULL, length_ms INTEGER NOT NULL) WITHOUT ROWID",
      },
      { type: "table", name: "counters", sql: "CREATE TABLE counters (id TEXT PRIMARY KEY, state TEXT NOT NULL, idle_at INTEGER NOT NULL) WITHOUT ROWID" },
      { type: "index", name: "counters_idle_at", sql: "CREATE INDEX counters_idle_at ON counters (idle_at)" },
      { type: "table", name: "journal", sql: "CREATE TABLE journal (part INTEGER PRIMARY KEY, body TEXT NOT NULL)" },
      {
        type: "table",
        name: "slots",
        sql: "CREATE TABLE slots (id TEXT NOT NULL, holder TEXT NOT NULL, expires_at INTEGER NOT NULL, PRIMARY KEY (id, holder))",
      },
      { type: "index", name: "sqlite_autoindex_slots_1", sql: null },
      { type: "table", name: "unwritten", sql: "CREATE TABLE unwritten (part INTEGER PRIMARY KEY, body TEXT NOT NULL)" },
    ]);
    const t = OBJECT_EPOCH;
    // Version 3: one journal row for the checkpoint, [id, state, idleAt] per counter in the order they were written; no counters row.
    expect(stored.rows).toEqual([]);
    const id = (limit: string) => JSON.stringify(storageId(key, limit));
    expect(stored.journal).toEqual([
      {
        part: 0,
        body:
          `[[${id("tb:10:60000:10")},{"t":${t},"n":42000},${t + 18_000}],[${id("lb:10:60000:10")},{"t":${t},"v":18000},${t + 18_000}],` +
          `[${id("fw:10:60000:10")},{"w":${t},"c":3},${t + 60_000}],[${id("swl:10:60000:10")},[[${t},3]],${t + 60_000}],` +
          `[${id("swc:10:60000:10")},{"w":${t},"p":0,"c":3},${t + 120_000}],[${id("gcra:10:60000:10")},{"t":${t + 18_000},"r":0},${t + 18_000}]]`,
      },
    ]);
  });
});

describe("a CounterObject's penalty blocks (counter tables version 2)", () => {
  const penalized: LimitCall = { ...limitOf("fixed_window"), penalty: { blockMs: 3_000, escalate: 2, maxBlockMs: 10_000 } };
  const key = '["golden",["user","p1"]]';

  it("are rows of exactly this form, written in the event that starts or escalates a block", async () => {
    const stub = counters.getByName(`stored-golden/${++n}-${Date.now()}`);
    await driveObject(stub, () => OBJECT_EPOCH);
    await stub.decide([{ key, cost: 10, limits: [penalized] }]);
    await stub.decide([{ key, cost: 1, limits: [penalized] }]);
    const blocks = () => runInDurableObject(stub, (_: CounterObject, state) => state.storage.sql.exec("SELECT id, until, length_ms FROM blocks").toArray());
    const id = storageId(key, "fw:10:60000:10");
    expect(await blocks()).toEqual([{ id, until: OBJECT_EPOCH + 3_000, length_ms: 3_000 }]);
    // A breach: 6 s from the block's start.
    await stub.decide([{ key, cost: 1, limits: [penalized] }]);
    expect(await blocks()).toEqual([{ id, until: OBJECT_EPOCH + 6_000, length_ms: 6_000 }]);
  });

  // Break tried: the PenaltyBook not creating its table (BLOCK_TABLES not run): every test of a CounterObject's SQLite fails.
  it("come to an object of version 1 on its next start; its counters rows load as they were, and a block outlives a restart", async () => {
    const name = `stored-golden/${++n}-${Date.now()}`;
    const stub = counters.getByName(name);
    await driveObject(stub, () => OBJECT_EPOCH);
    // An object as version 1 left it: no blocks table, one counter row (9 of 10 taken).
    await runInDurableObject(stub, (_: CounterObject, state) => {
      // Its tables as that version made them (a new object of this one makes none until it writes).
      makeTables(state.storage.sql, COUNTER_TABLES.slice(0, 3));
      state.storage.sql.exec("DROP TABLE IF EXISTS blocks");
      state.storage.sql.exec(
        "INSERT INTO counters (id, state, idle_at) VALUES (?, ?, ?)",
        storageId(key, "fw:10:60000:10"),
        `{"w":${OBJECT_EPOCH},"c":9}`,
        OBJECT_EPOCH + 60_000,
      );
    });
    await evictAllDurableObjects();
    const restarted = counters.getByName(name);
    await driveObject(restarted, () => OBJECT_EPOCH);
    const [first, second] = await restarted.decide([
      { key, cost: 1, limits: [penalized] },
      { key, cost: 1, limits: [penalized] },
    ]);
    // The window would allow again in 60 s; the block (2 minutes) says longer, and holds across a restart.
    const long = { ...penalized, penalty: { blockMs: 120_000, escalate: 1, maxBlockMs: 120_000 } };
    const [third] = await restarted.decide([{ key: `${key}-`, cost: 11, limits: [long] }]);
    expect([first.allowed, first.decisions[0].remaining, second.allowed, second.decisions[0].retryAfterMs, third.allowed]).toEqual([
      true,
      0,
      false,
      60_000,
      false,
    ]);
    await evictAllDurableObjects();
    const again = counters.getByName(name);
    await driveObject(again, () => OBJECT_EPOCH + 1_000);
    const [peeked] = await again.decide([{ key: `${key}-`, cost: 1, limits: [long] }]);
    expect([peeked.allowed, peeked.decisions[0].retryAfterMs]).toEqual([false, 119_000]);
  });
});

describe("a CounterObject's checkpoint journal (counter tables version 3)", () => {
  const limit = limitOf("fixed_window");
  const key = '["golden",["user","j1"]]';
  const id = storageId(key, "fw:10:60000:10");

  // Breaks tried: restore() ignoring rows (the journal's stale entry read instead: 9 remaining where 0 is) and a
  // counter read from its row journaled afterwards (a journal entry where none is expected).
  it("comes to an object of version 2 on its next start; its counters rows load and keep being saved to them", async () => {
    const name = `stored-golden/${++n}-${Date.now()}`;
    const stub = counters.getByName(name);
    await driveObject(stub, () => OBJECT_EPOCH);
    // An object as version 2 left it: no journal table, one counter row (9 of 10 taken).
    await runInDurableObject(stub, (_: CounterObject, state) => {
      // Its tables as that version made them (a new object of this one makes none until it writes).
      makeTables(state.storage.sql, [...COUNTER_TABLES.slice(0, 3), ...BLOCK_TABLES]);
      state.storage.sql.exec("DROP TABLE IF EXISTS journal");
      state.storage.sql.exec("INSERT INTO counters (id, state, idle_at) VALUES (?, ?, ?)", id, `{"w":${OBJECT_EPOCH},"c":9}`, OBJECT_EPOCH + 60_000);
    });
    await evictAllDurableObjects();
    const restarted = counters.getByName(name);
    await driveObject(restarted, () => OBJECT_EPOCH + 1);
    const [first, second] = await restarted.decide([
      { key, cost: 1, limits: [limit] },
      { key, cost: 1, limits: [limit] },
    ]);
    expect([first.allowed, first.decisions[0].remaining, second.allowed]).toEqual([true, 0, false]);
    const stored = await runInDurableObject(restarted, (_: CounterObject, state) => ({
      rows: state.storage.sql.exec("SELECT id, state FROM counters").toArray(),
      journal: rowsIf(state.storage.sql, "journal", "SELECT body FROM journal"),
    }));
    expect(stored).toEqual({ rows: [{ id, state: `{"w":${OBJECT_EPOCH},"c":10}` }], journal: [] });
    // A restart reads the row, not a journal.
    await evictAllDurableObjects();
    const again = counters.getByName(name);
    await driveObject(again, () => OBJECT_EPOCH + 2);
    expect((await again.decide([{ key, cost: 0, limits: [limit] }]))[0].decisions[0].remaining).toBe(0);
  });

  it("is read back by a restarted object, and given back with every table once the object holds nothing", async () => {
    const name = `stored-golden/${++n}-${Date.now()}`;
    const stub = counters.getByName(name);
    await driveObject(stub, () => OBJECT_EPOCH);
    await stub.decide([{ key, cost: 4, limits: [limit] }]);
    await evictAllDurableObjects();
    let now = OBJECT_EPOCH + 1_000;
    const restarted = counters.getByName(name);
    await driveObject(restarted, () => now);
    expect((await restarted.decide([{ key, cost: 0, limits: [limit] }]))[0].decisions[0].remaining).toBe(6);
    // Past the window, and past DELETE_IDLE_MS without a call: the alarms sweep and then delete everything.
    for (let alarm = await runInDurableObject(restarted, (_: CounterObject, state) => state.storage.getAlarm()); alarm !== null; ) {
      now = Math.max(now, alarm);
      await runDurableObjectAlarm(restarted);
      alarm = await runInDurableObject(restarted, (_: CounterObject, state) => state.storage.getAlarm());
    }
    expect(now).toBe(OBJECT_EPOCH + 1_000 + DELETE_IDLE_MS);
    const tables = await runInDurableObject(restarted, (_: CounterObject, state) =>
      state.storage.sql.exec("SELECT name FROM sqlite_master WHERE name NOT LIKE '\\_%' ESCAPE '\\'").toArray(),
    );
    expect(tables).toEqual([]);
    // The next call makes the tables again and counts from a fresh window.
    expect((await restarted.decide([{ key, cost: 1, limits: [limit] }]))[0].decisions[0].remaining).toBe(9);
  });
});

describe("a MetricsObject's SQLite", () => {
  it("stores a fixed traffic batch as exactly these rows", async () => {
    const stub = (env as unknown as Env).METRICS.getByName(`stored-golden-metrics/${++n}-${Date.now()}`);
    const bucket = 170_000_000;
    const minute = 28_333_333;
    const ref = { domain: "d", descriptor: "k", limit: "l", window_seconds: 60, shadow: false };
    await stub.add([], {
      policies: [{ id: '["d","k","l"]', ref, buckets: [[bucket, 5, 1, 0, 0]], minutes: [[minute, { total: 6, error: 0, entries: [["k=v", 6]] }]] }],
      failures: [[bucket, 1, 0]],
      dropped: 0,
    });
    const rows = await runInDurableObject(stub, (_: unknown, state) => {
      const all = (table: string) => state.storage.sql.exec(`SELECT * FROM ${table} ORDER BY 1, 2`).toArray();
      return { policies: all("traffic_policies"), buckets: all("traffic_buckets"), sketches: all("traffic_sketches") };
    });
    const sketch = '{"total":6,"error":0,"entries":[["k=v",6]]}';
    expect(rows).toEqual({
      policies: [{ id: '["d","k","l"]', ref: '{"domain":"d","descriptor":"k","limit":"l","window_seconds":60,"shadow":false}' }],
      buckets: [
        { policy: "", slot: 80, bucket: bucket, counts: "[1,0]" },
        { policy: '["d","k","l"]', slot: 80, bucket: bucket, counts: "[5,1,0,0]" },
      ],
      sketches: [
        { policy: '["d","k","l"]', span: "hour", slot: 1, period: 2_833_333, data: sketch },
        { policy: '["d","k","l"]', span: "now", slot: 1, period: minute, data: sketch },
      ],
    });
  });
});

describe("the wire version, through a real object", () => {
  const call = (key: string): CounterCall => ({ key, cost: 1, limits: [limitOf("fixed_window")] });
  const remaining = async (stub: DurableObjectStub<CounterObject>, key: string) => (await stub.decide([{ ...call(key), cost: 0 }]))[0].decisions[0].remaining;

  it("answers a caller that sends no version (an older deploy's) and one that sends this version", async () => {
    const stub = counters.getByName(`stored-wire/${++n}-${Date.now()}`);
    const text = toWire([call("k")]);
    expect(verdictsFromWire<CounterVerdict>(await stub.decideText(text))[0].allowed).toBe(true);
    expect(verdictsFromWire<CounterVerdict>(await stub.decideText(text, WIRE_VERSION))[0].allowed).toBe(true);
    expect((await stub.decide([call("k")]))[0].allowed).toBe(true);
    expect(await remaining(stub, "k")).toBe(7);
  });

  it("refuses an unknown version by name, deciding nothing", async () => {
    const stub = counters.getByName(`stored-wire/${++n}-${Date.now()}`);
    const text = toWire([call("k")]);
    for (const version of [WIRE_VERSION + 1, 0, 1.5, "1" as never]) {
      const answer = await stub.decideText(text, version);
      expect(fromWire(answer)).toEqual({
        refused: `floodgate wire version ${JSON.stringify(version)} is not read by this object (it reads 1 to ${WIRE_VERSION}): the caller and the object are from different deploys; retry once one deploy has reached both`,
        reads: [1, WIRE_VERSION],
      });
      // The caller's side: a WireVersionError naming the version, not verdicts.
      expect(() => verdictsFromWire(answer)).toThrow(`floodgate wire version ${JSON.stringify(version)} is not read`);
    }
    // A newer caller's text this object could not even parse is still refused for its version.
    expect(fromWire<{ refused: string }>(await stub.decideText("{not json", WIRE_VERSION + 1)).refused).toContain(`wire version ${WIRE_VERSION + 1}`);
    expect(await remaining(stub, "k")).toBe(10);
  });
});
