/**
 * Memory: bytes of state per tracked key for every algorithm, in memory and
 * in storage, and how they grow with the limit. Run in its own Node process
 * with `--expose-gc` (bench/run.mjs does) and prints one JSON document.
 *
 * - JSON: the stored encoding of the state (what the Durable Object writes).
 * - heap, state: V8 heap bytes of one state object, measured over many keys
 *   (heap after − heap before, after full GCs, divided by the key count).
 * - heap, per key: the same for everything CounterObject keeps per tracked
 *   key: the counter-key string, its Map entry, the inner Map by limit id
 *   and the `{ state, idleAt }` entry.
 * - SQLite: bytes of database per stored counter, from the real CounterStore
 *   (src/durable/counters/counter-store.ts) over node:sqlite: the row (id, JSON state,
 *   idle_at) plus its primary-key and idle_at index entries, as pages grow.
 *
 * V8 in Node and in workerd lay objects out the same way, so the heap
 * figures carry over; page use depends only on SQLite's file format.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { algorithms } from "../../src/algorithms/index.ts";
import { CounterStore } from "../../src/durable/counters/counter-store.ts";

const WINDOW_MS = 60_000;
const START = 1_700_000_000_000;

/**
 * A realistic state of `name` at limit `limit`: `hits` requests spread
 * evenly over one window (distinct ms, so the sliding log has one entry each).
 */
function stateAfter(name, limit, hits) {
  const spec = { limit, windowMs: WINDOW_MS, burst: limit };
  let state;
  const gap = Math.max(1, Math.floor(WINDOW_MS / Math.max(1, hits)));
  for (let i = 0; i < hits; i++) state = algorithms[name].decide(state, spec, START + i * gap, 1).state;
  return state;
}

/** Heap bytes per item kept alive by `make(i)` for `count` items. */
function heapPerItem(make, count) {
  const gc = globalThis.gc;
  if (!gc) throw new Error("run with node --expose-gc");
  const keep = new Array(count);
  gc();
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < count; i++) keep[i] = make(i);
  gc();
  gc();
  const after = process.memoryUsage().heapUsed;
  // Keep `keep` reachable until after the measurement.
  if (keep.length !== count) throw new Error("unreachable");
  return (after - before) / count;
}

/** node:sqlite behind the slice of SqlStorage's `exec` that CounterStore uses. */
function sqlStorage(db) {
  return {
    exec(query, ...bindings) {
      const statement = db.prepare(query);
      if (/^\s*(SELECT|PRAGMA|WITH)\b/i.test(query)) {
        const rows = statement.all(...bindings);
        return { toArray: () => rows, one: () => rows[0], rowsRead: rows.length, rowsWritten: 0, [Symbol.iterator]: () => rows[Symbol.iterator]() };
      }
      const { changes } = statement.run(...bindings);
      return { toArray: () => [], one: () => undefined, rowsRead: 0, rowsWritten: Number(changes), [Symbol.iterator]: () => [][Symbol.iterator]() };
    },
  };
}

/** Database bytes per stored counter, for `count` counters of `state`. */
function sqliteBytesPerCounter(state, count) {
  const dir = mkdtempSync(join(tmpdir(), "floodgate-bench-sqlite-"));
  try {
    const db = new DatabaseSync(join(dir, "counters.sqlite"));
    const store = new CounterStore(sqlStorage(db));
    const pages = () => db.prepare("PRAGMA page_count").get().page_count;
    const pageSize = db.prepare("PRAGMA page_size").get().page_size;
    const before = pages();
    db.exec("BEGIN");
    for (let i = 0; i < count; i++) store.save(`${counterKey(i)}\u0001swc:100:60000:100`, state, START + 2 * WINDOW_MS);
    db.exec("COMMIT");
    const bytes = ((pages() - before) * pageSize) / count;
    db.close();
    return bytes;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// A counter key as floodgate builds it (src/durable/counters/placement.ts): JSON of domain and entries.
const counterKey = (i) => JSON.stringify(["api", ["api_key", `key-${String(i).padStart(8, "0")}`]]);

/**
 * Every measurement, as one JSON-ready object.
 *
 * @example
 * const { perAlgorithm, growth } = measureMemory({ keys: 20_000 });
 */
export function measureMemory({ keys = 20_000, limit = 100, limits = [10, 100, 1_000, 10_000] } = {}) {
  const perAlgorithm = Object.keys(algorithms).map((name) => {
    const state = stateAfter(name, limit, limit / 2);
    const json = JSON.stringify(state);
    // Each key gets its own state object, as decoded from storage.
    const stateHeap = heapPerItem(() => JSON.parse(json), keys);
    const keyHeap =
      heapPerItem((i) => {
        const windows = new Map([["swc:100:60000:100", { state: JSON.parse(json), idleAt: START + 2 * WINDOW_MS }]]);
        return [counterKey(i), windows];
      }, keys) + mapEntryBytes(keys);
    return {
      algorithm: name,
      limit,
      hits: limit / 2,
      json: json.length,
      heapState: stateHeap,
      heapPerKey: keyHeap,
      sqlitePerCounter: sqliteBytesPerCounter(state, keys),
    };
  });
  const growth = [];
  for (const name of Object.keys(algorithms)) {
    for (const l of limits) {
      const state = stateAfter(name, l, l);
      const json = JSON.stringify(state);
      const count = Math.max(50, Math.min(keys, Math.floor(2e6 / json.length)));
      growth.push({
        algorithm: name,
        limit: l,
        json: json.length,
        heapState: heapPerItem(() => JSON.parse(json), count),
        sqlitePerCounter: sqliteBytesPerCounter(state, Math.min(count, 2_000)),
      });
    }
  }
  return { keys, windowMs: WINDOW_MS, perAlgorithm, growth };
}

/**
 * What one more entry costs in the outer `Map<counterKey, …>` of
 * CounterObject (the tuple above stands in for the key and the value, not
 * for the outer table's slot).
 */
function mapEntryBytes(count) {
  const keysOnly = Array.from({ length: count }, (_, i) => i);
  return heapPerItem((i) => {
    // One Map holding `count` entries, charged evenly to each entry.
    if (i === 0) return new Map(keysOnly.map((k) => [k, 0]));
    return 0;
  }, count);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const quick = process.argv.includes("--quick");
  process.stdout.write(`${JSON.stringify(quick ? measureMemory({ keys: 1_000, limits: [10, 100, 1_000] }) : measureMemory())}\n`);
}
