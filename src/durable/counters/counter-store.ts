/**
 * SQLite persistence for counter state: one row per counter (counter key +
 * limit id) of a window long enough to keep (docs/reliability.md, "Durability"). Every
 * statement's rows read and written are summed, as billed, for the bench's
 * cost model.
 */

import { COUNTER_TABLES } from "../../stored/counter-tables.ts";
import { LazyTable, statementsOf } from "./lazy-table.ts";

/** A spilled counter: its id, state and when it goes idle. */
export type SpilledCounter = readonly [id: string, state: unknown, idleAt: number];

/** The most characters of one spill row: well under a Durable Object's SQLite row limit (2 MB). */
export const SPILL_CHARS = 512 * 1024;

/** A stored counter's state and when it goes idle. */
export interface StoredCounter {
  readonly state: unknown;
  readonly idleAt: number;
}

/**
 * Thin wrapper over the object's SQLite database. All calls are synchronous
 * and join the current event's implicit transaction: writes of one event
 * commit together, before any answer of that event leaves the object.
 *
 * @example
 * const store = new CounterStore(ctx.storage.sql);
 * store.save("k\u0001limit", { w: 0, c: 1 }, Date.now() + 60_000);
 */
export class CounterStore {
  private readonly sql: SqlStorage;
  /** Rows read and written since this instance started, as SQLite counted them. */
  rowsRead = 0;
  rowsWritten = 0;

  /** The tables (a stored format: src/stored/counter-tables.ts, docs/stored-formats.md), each made by its first write (lazy-table.ts). */
  private readonly countersTable: LazyTable;
  private readonly unwrittenTable: LazyTable;
  private readonly journalTable: LazyTable;

  constructor(sql: SqlStorage) {
    this.sql = sql;
    const run = this.run.bind(this) as typeof this.run;
    this.countersTable = new LazyTable(run, statementsOf(COUNTER_TABLES, "counters"));
    this.unwrittenTable = new LazyTable(run, statementsOf(COUNTER_TABLES, "unwritten"));
    this.journalTable = new LazyTable(run, statementsOf(COUNTER_TABLES, "journal"));
  }

  /**
   * Replace the spill: the small counters a checkpoint left unwritten, as
   * [id, state, idleAt], in a few rows of SPILL_CHARS at most rather than a
   * row (and an index entry) each (docs/reliability.md, "Cheap key scans and thin keys").
   *
   * @example
   * store.spill([["k\u0001limit", { w: 0, c: 1 }, Date.now() + 60_000]]);
   */
  spill(entries: readonly SpilledCounter[]): void {
    if (entries.length === 0 && !this.unwrittenTable.exists()) return;
    this.unwrittenTable.make();
    this.run("DELETE FROM unwritten");
    let part: string[] = [];
    let chars = 0;
    const flush = () => {
      if (part.length > 0) this.run("INSERT INTO unwritten (body) VALUES (?)", `[${part.join(",")}]`);
      part = [];
      chars = 0;
    };
    for (const entry of entries) {
      const text = JSON.stringify(entry);
      if (chars + text.length > SPILL_CHARS) flush();
      part.push(text);
      chars += text.length + 1;
    }
    flush();
  }

  /**
   * The counters of the last spill (none: no spill).
   *
   * @example
   * for (const [id, state, idleAt] of store.readSpill()) restore(id, state, idleAt);
   */
  readSpill(): SpilledCounter[] {
    if (!this.unwrittenTable.exists()) return [];
    return this.run<{ body: string }>("SELECT body FROM unwritten ORDER BY part").flatMap((row) => JSON.parse(row.body) as SpilledCounter[]);
  }

  /**
   * The checkpoint journal's parts (docs/reliability.md, "What a request
   * writes"): each part's number and its counters as [id, state, idleAt].
   *
   * @example
   * for (const [part, counters] of store.readJournal()) restore(part, counters);
   */
  readJournal(): [part: number, counters: SpilledCounter[]][] {
    if (!this.journalTable.exists()) return [];
    return this.run<{ part: number; body: string }>("SELECT part, body FROM journal ORDER BY part").map((row) => [
      row.part,
      JSON.parse(row.body) as SpilledCounter[],
    ]);
  }

  /**
   * Write one part of the journal whole (one row written, whatever the
   * number of counters in it), or delete it when it holds none; returns
   * the characters written.
   *
   * @example
   * store.writePart(0, [["k\u0001limit", { w: 0, c: 2 }, Date.now() + 60_000]]);
   */
  writePart(part: number, counters: readonly SpilledCounter[]): number {
    if (counters.length === 0) {
      if (this.journalTable.exists()) this.run("DELETE FROM journal WHERE part = ?", part);
      return 0;
    }
    const body = JSON.stringify(counters);
    this.journalTable.make();
    this.run("INSERT INTO journal (part, body) VALUES (?, ?) ON CONFLICT (part) DO UPDATE SET body = excluded.body", part, body);
    return body.length;
  }

  /**
   * One counter, or undefined if it was never stored (or was swept).
   *
   * @example
   * store.load(id)?.state;
   */
  load(id: string): StoredCounter | undefined {
    if (!this.countersTable.exists()) return undefined;
    const [row] = this.run<{ state: string; idle_at: number }>("SELECT state, idle_at FROM counters WHERE id = ?", id);
    return row === undefined ? undefined : { state: JSON.parse(row.state), idleAt: row.idle_at };
  }

  /**
   * Insert or replace one counter's state.
   *
   * @example
   * store.save(id, state, idleAt);
   */
  save(id: string, state: unknown, idleAt: number): void {
    this.countersTable.make();
    // An upsert updates the row in place: fewer rows written (billed) than a replace's delete and insert.
    this.run(
      "INSERT INTO counters (id, state, idle_at) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET state = excluded.state, idle_at = excluded.idle_at",
      id,
      JSON.stringify(state),
      idleAt,
    );
  }

  /**
   * Replace the state of a stored counter whose idle time has not moved:
   * the idle_at index is left alone, so one row is written, not two.
   * Returns false when there was no such row (then `save` it).
   *
   * @example
   * if (!store.saveState(id, state)) store.save(id, state, idleAt);
   */
  saveState(id: string, state: unknown): boolean {
    if (!this.countersTable.exists()) return false;
    const before = this.rowsWritten;
    this.run("UPDATE counters SET state = ? WHERE id = ?", JSON.stringify(state), id);
    return this.rowsWritten > before;
  }

  /**
   * Remove every counter whose id starts with `prefix` (all windows of one key).
   *
   * @example
   * store.deletePrefix(key + "\u0001");
   */
  deletePrefix(prefix: string): void {
    if (!this.countersTable.exists()) return;
    // substr comparison rather than LIKE: keys may contain % and _.
    this.run("DELETE FROM counters WHERE substr(id, 1, ?) = ?", prefix.length, prefix);
  }

  /**
   * Drop counters that have gone idle, keeping storage bounded by active keys.
   *
   * @example
   * store.deleteIdle(Date.now());
   */
  deleteIdle(now: number): void {
    if (!this.countersTable.exists()) return;
    this.run("DELETE FROM counters WHERE idle_at <= ?", now);
  }

  /** When the first stored counter goes idle (Infinity: none stored). */
  earliestIdleAt(): number {
    if (!this.countersTable.exists()) return Infinity;
    const [row] = this.run<{ at: number | null }>("SELECT min(idle_at) AS at FROM counters");
    return row?.at ?? Infinity;
  }

  /** Number of stored counters (for tests and metrics). */
  count(): number {
    if (!this.countersTable.exists()) return 0;
    const [row] = this.run<{ n: number }>("SELECT count(*) AS n FROM counters");
    return row.n;
  }

  private run<T extends Record<string, SqlStorageValue>>(query: string, ...bindings: unknown[]): T[] {
    const cursor = this.sql.exec<T>(query, ...bindings);
    const rows = cursor.toArray();
    this.rowsRead += cursor.rowsRead;
    this.rowsWritten += cursor.rowsWritten;
    return rows;
  }
}
