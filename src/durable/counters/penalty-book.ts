/**
 * Penalty blocks (docs/rules.md, "Penalty box") of one counter object:
 * written through to SQLite in the event that changes them, so a restarted
 * object still refuses a blocked key, and remembered in a small LRU so a
 * decision on a penalty limit costs no row read once its key was seen.
 */
import type { PenaltyState } from "../../algorithms/penalty.ts";
import { BLOCK_TABLES } from "../../stored/counter-tables.ts";
import { LazyTable } from "./lazy-table.ts";

/**
 * Bytes of blocks (and "no block" markers) one object keeps in memory: a
 * share of MEMORY_BYTES (docs/reliability.md, "Bounded memory"). Storage
 * holds every block; one forgotten here is read back on its next hit.
 */
export const PENALTY_BOOK_BYTES = 256 * 1024;
// What V8 holds per entry: a Map slot, the state object, the id at two bytes a character.
const ENTRY_BYTES = 120;
const weightOf = (id: string) => ENTRY_BYTES + 2 * id.length;

/**
 * Blocks by storage id (counter key U+0001 limit id).
 *
 * @example
 * const book = new PenaltyBook(ctx.storage.sql);
 * book.write(id, { until: now + 900_000, lengthMs: 900_000 });
 * book.read(id); // { until, lengthMs }
 */
export class PenaltyBook {
  private readonly sql: SqlStorage;
  /** Made with the first block (lazy-table.ts): a key never blocked writes no table. */
  private readonly table: LazyTable;
  private readonly capacity: number;
  /** Recency order, oldest first; null: known to have no block. */
  private readonly known = new Map<string, PenaltyState | null>();
  private held = 0;
  /** No stored block ends before this (Infinity: none stored): the sweep asks storage only once one may have ended. */
  private earliest: number;
  /** Rows read and written, as SQLite counted them. */
  rowsRead = 0;
  rowsWritten = 0;

  constructor(sql: SqlStorage, capacity = PENALTY_BOOK_BYTES) {
    this.sql = sql;
    this.capacity = capacity;
    this.table = new LazyTable(this.run.bind(this) as typeof this.run, BLOCK_TABLES);
    this.earliest = this.earliestUntil();
  }

  /** The block of `id` (undefined: none, or one that ended; an ended one is left for the sweep). */
  read(id: string): PenaltyState | undefined {
    const cached = this.known.get(id);
    if (cached !== undefined) {
      this.known.delete(id);
      this.known.set(id, cached);
      return cached ?? undefined;
    }
    const [row] = this.table.exists() ? this.run<{ until: number; length_ms: number }>("SELECT until, length_ms FROM blocks WHERE id = ?", id) : [];
    const state = row === undefined ? null : { until: row.until, lengthMs: row.length_ms };
    this.keep(id, state);
    return state ?? undefined;
  }

  /** Keep `state` as the block of `id` (undefined: none); a state unchanged (the same object) writes nothing. */
  write(id: string, state: PenaltyState | undefined): void {
    const before = this.read(id);
    if (state === before) return;
    if (state === undefined) {
      if (this.table.exists()) this.run("DELETE FROM blocks WHERE id = ?", id);
    } else {
      this.table.make();
      this.earliest = Math.min(this.earliest, state.until);
      this.run(
        "INSERT INTO blocks (id, until, length_ms) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET until = excluded.until, length_ms = excluded.length_ms",
        id,
        state.until,
        state.lengthMs,
      );
    }
    this.keep(id, state ?? null);
  }

  /** Lift every block whose id starts with `prefix` (a counter reset: all limits of one key). */
  reset(prefix: string): void {
    for (const id of [...this.known.keys()]) if (id.startsWith(prefix)) this.drop(id);
    // substr rather than LIKE: keys may contain % and _.
    if (this.table.exists()) this.run("DELETE FROM blocks WHERE substr(id, 1, ?) = ?", prefix.length, prefix);
  }

  /** Drop blocks that ended by `now`; returns when the next one ends (Infinity: none left). */
  sweep(now: number): number {
    if (this.earliest > now) return this.earliest;
    for (const [id, state] of [...this.known]) if (state !== null && state.until <= now) this.drop(id);
    this.run("DELETE FROM blocks WHERE until <= ?", now);
    this.earliest = this.earliestUntil();
    return this.earliest;
  }

  /** When the first stored block ends (Infinity: none). */
  earliestUntil(): number {
    if (!this.table.exists()) return Infinity;
    const [row] = this.run<{ at: number | null }>("SELECT min(until) AS at FROM blocks");
    return row?.at ?? Infinity;
  }

  /** Estimated bytes held in memory (at most about PENALTY_BOOK_BYTES). */
  get bytes(): number {
    return this.held;
  }

  private keep(id: string, state: PenaltyState | null): void {
    this.drop(id);
    this.known.set(id, state);
    this.held += weightOf(id);
    for (const oldest of this.known.keys()) {
      if (this.held <= this.capacity || oldest === id) break;
      this.drop(oldest);
    }
  }

  private drop(id: string): void {
    if (!this.known.delete(id)) return;
    this.held -= weightOf(id);
  }

  private run<T extends Record<string, SqlStorageValue>>(query: string, ...bindings: unknown[]): T[] {
    const cursor = this.sql.exec<T>(query, ...bindings);
    const rows = cursor.toArray();
    this.rowsRead += cursor.rowsRead;
    this.rowsWritten += cursor.rowsWritten;
    return rows;
  }
}
