/**
 * The rows of a backlog object (backlog.ts): one per queued id holding a
 * place, with the time its place lapses on its own. The table is a stored
 * format (src/stored/queue-tables.ts, docs/stored-formats.md).
 */
import { BACKLOG_TABLE } from "../../stored/queue-tables.ts";

/**
 * In the object: hold a place for `id` unless `cap` places are held by
 * requests that have not expired. Answers whether `id` holds one.
 *
 * @example
 * claimIn(this.ctx.storage.sql, id, 100, expiresAt, Date.now()); // true
 */
export function claimIn(sql: SqlStorage, id: string, cap: number, expiresAt: number, now: number): boolean {
  sql.exec(BACKLOG_TABLE);
  sql.exec("DELETE FROM backlog WHERE expires_at <= ?", now);
  if (sql.exec("SELECT 1 FROM backlog WHERE id = ?", id).toArray().length > 0) return true;
  const [{ held }] = sql.exec<{ held: number }>("SELECT COUNT(*) AS held FROM backlog").toArray();
  if (held >= cap) return false;
  sql.exec("INSERT INTO backlog (id, expires_at) VALUES (?, ?)", id, expiresAt);
  return true;
}

/**
 * In the object: free `id`'s place.
 *
 * @example
 * releaseIn(this.ctx.storage.sql, id);
 */
export function releaseIn(sql: SqlStorage, id: string): void {
  sql.exec(BACKLOG_TABLE);
  sql.exec("DELETE FROM backlog WHERE id = ?", id);
}
