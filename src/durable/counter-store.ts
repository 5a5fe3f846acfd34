/**
 * SQLite persistence for counter state. Only counters whose window is at
 * least `DURABLE_WINDOW_MS` are written: they are the ones SPEC section 7
 * promises survive eviction and restarts; shorter windows refill before a
 * restarted object would matter, and skipping them keeps the hot path off disk.
 */

/** Windows this long or longer are written through to storage. */
export const DURABLE_WINDOW_MS = 60_000;

/** A stored counter: its id (counter key + limit id), JSON state, and when it goes idle. */
export interface StoredCounter {
  readonly id: string;
  readonly state: unknown;
  readonly idleAt: number;
}

/**
 * Thin wrapper over the object's SQLite database. All calls are synchronous
 * and join the current event's implicit transaction, so a decision and its
 * write commit together before the answer leaves the object.
 *
 * @example
 * const store = new CounterStore(ctx.storage.sql);
 * store.save("k\u0001limit", { t: 1 }, Date.now() + 60_000);
 */
export class CounterStore {
  private readonly sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.sql = sql;
    sql.exec("CREATE TABLE IF NOT EXISTS counters (id TEXT PRIMARY KEY, state TEXT NOT NULL, idle_at INTEGER NOT NULL)");
    sql.exec("CREATE INDEX IF NOT EXISTS counters_idle_at ON counters (idle_at)");
  }

  /**
   * Every counter still active at `now`; idle ones are deleted on the way.
   *
   * @example
   * for (const counter of store.loadActive(Date.now())) memory.set(counter.id, counter);
   */
  loadActive(now: number): StoredCounter[] {
    this.deleteIdle(now);
    const rows = this.sql.exec<{ id: string; state: string; idle_at: number }>("SELECT id, state, idle_at FROM counters").toArray();
    return rows.map((row) => ({ id: row.id, state: JSON.parse(row.state), idleAt: row.idle_at }));
  }

  /**
   * Insert or replace one counter's state.
   *
   * @example
   * store.save(id, state, idleAt);
   */
  save(id: string, state: unknown, idleAt: number): void {
    this.sql.exec("INSERT OR REPLACE INTO counters (id, state, idle_at) VALUES (?, ?, ?)", id, JSON.stringify(state), idleAt);
  }

  /**
   * Remove every counter whose id starts with `prefix` (all windows of one key).
   *
   * @example
   * store.deletePrefix(key + "\u0001");
   */
  deletePrefix(prefix: string): void {
    // substr comparison rather than LIKE: keys may contain % and _.
    this.sql.exec("DELETE FROM counters WHERE substr(id, 1, ?) = ?", prefix.length, prefix);
  }

  /**
   * Drop counters that have gone idle, keeping storage bounded by active keys.
   *
   * @example
   * store.deleteIdle(Date.now());
   */
  deleteIdle(now: number): number {
    return this.sql.exec("DELETE FROM counters WHERE idle_at <= ?", now).rowsWritten;
  }

  /** Number of stored counters (for tests and metrics). */
  count(): number {
    return this.sql.exec<{ n: number }>("SELECT count(*) AS n FROM counters").one().n;
  }
}
