/**
 * A counter object's tables are made by their first write
 * (src/durable/counters/lazy-table.ts): tests that read storage behind the
 * object's back, or write it as an older deploy left it, make or look for
 * the tables themselves.
 */

/** Whether the object's storage has table `name`. */
export function hasTable(sql: SqlStorage, name: string): boolean {
  return sql.exec("SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = ?", name).toArray().length > 0;
}

/** The rows of `query` on `table`, none when the table was never made. */
export function rowsIf<T extends Record<string, SqlStorageValue>>(sql: SqlStorage, table: string, query: string, ...bindings: unknown[]): T[] {
  return hasTable(sql, table) ? sql.exec<T>(query, ...bindings).toArray() : [];
}

/** Run `statements` (CREATE … IF NOT EXISTS): the tables as an object that wrote to them has them. */
export function makeTables(sql: SqlStorage, statements: readonly string[]): void {
  for (const statement of statements) sql.exec(statement);
}
