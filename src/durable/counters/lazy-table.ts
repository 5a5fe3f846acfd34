/**
 * A table made by its first write, not by a new object (docs/reliability.md,
 * "What a request writes"): making a table is rows written, so an object
 * that never writes to it makes none. A regional copy that only relays, a
 * key scan's shard before its first spill, a key that never takes a slot or
 * a block: none of them writes a row for tables it does not use.
 *
 * While the table is not made, each read first asks storage whether it
 * exists by now (an older deploy, a restore or a test may have made it): a
 * row or two read, billed at a thousandth of a row written.
 */

/** Runs one statement and counts its rows (the owner's billed tally). */
export type RunSql = <T extends Record<string, SqlStorageValue>>(query: string, ...bindings: unknown[]) => T[];

/**
 * The statements of `tables` that make table `name` and its indexes.
 *
 * @example
 * statementsOf(COUNTER_TABLES, "counters"); // the CREATE TABLE and its idle_at index
 */
export function statementsOf(tables: readonly string[], name: string): string[] {
  const pattern = new RegExp(`(TABLE IF NOT EXISTS ${name} |\\bON ${name} )`);
  return tables.filter((statement) => pattern.test(statement));
}

/**
 * One table (with its indexes) made by its first write.
 *
 * @example
 * const journal = new LazyTable(run, statementsOf(COUNTER_TABLES, "journal"));
 * if (!journal.exists()) return []; // nothing was ever written: no row read from it
 * journal.make(); // before its first write
 */
export class LazyTable {
  private readonly run: RunSql;
  private readonly statements: readonly string[];
  private readonly name: string;
  private made = false;

  /** `statements`: CREATE … IF NOT EXISTS, the table's first. */
  constructor(run: RunSql, statements: readonly string[]) {
    const name = /TABLE IF NOT EXISTS (\w+)/.exec(statements[0] ?? "")?.[1];
    if (name === undefined) throw new Error(`no CREATE TABLE in ${JSON.stringify(statements[0])}`);
    this.run = run;
    this.statements = statements;
    this.name = name;
  }

  /** Whether the table exists (asked of storage until it does; then its statements run once, so an older one gets what it lacks). */
  exists(): boolean {
    if (this.made) return true;
    if (this.run("SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = ?", this.name).length === 0) return false;
    this.create();
    return true;
  }

  /** Make the table (and its indexes) if it does not exist yet: before its first write. */
  make(): void {
    if (!this.exists()) this.create();
  }

  private create(): void {
    for (const statement of this.statements) this.run(statement);
    this.made = true;
  }
}
