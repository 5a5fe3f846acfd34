/**
 * STORED FORMAT (docs/stored-formats.md): the SQLite tables of a
 * CounterObject. Objects keep their tables across deploys (an object created
 * by an older deploy has them as that deploy made them), so a change is made
 * as docs/stored-formats.md says: the statements stay `IF NOT EXISTS`, a
 * column added is nullable or defaulted, and both deploys read the rows.
 */

/** Version of the tables below: raised with any change of their statements or of what their rows hold. */
export const COUNTER_TABLES_VERSION = 3;

/**
 * Counter windows (`id`: counter key U+0001 limit id; `state`: the
 * algorithm's state as JSON; `idle_at`: when it holds nothing any more),
 * and the spill of small unwritten counters (`body`: JSON of [id, state,
 * idleAt] triples). Version 3 adds the checkpoint journal (`journal`: a
 * part number and the JSON of its [id, state, idleAt] triples; a checkpoint
 * rewrites the one row of each part holding a changed counter, so a
 * counter's checkpoint writes no row and index entry of its own); a counter
 * with a `counters` row (written by version 2, or paged out of memory) keeps
 * saving to its row, which a restarted object prefers to the journal.
 * WITHOUT ROWID: a row lives in its primary key's tree, so
 * a new counter writes that tree and the idle_at index, not a rowid table as
 * well (rows written are billed); an object created before keeps its table
 * as it was, and the statements serve both.
 */
export const COUNTER_TABLES: readonly string[] = [
  "CREATE TABLE IF NOT EXISTS counters (id TEXT PRIMARY KEY, state TEXT NOT NULL, idle_at INTEGER NOT NULL) WITHOUT ROWID",
  "CREATE INDEX IF NOT EXISTS counters_idle_at ON counters (idle_at)",
  "CREATE TABLE IF NOT EXISTS unwritten (part INTEGER PRIMARY KEY, body TEXT NOT NULL)",
  "CREATE TABLE IF NOT EXISTS journal (part INTEGER PRIMARY KEY, body TEXT NOT NULL)",
];

/** Concurrency slots held (`id`: counter key U+0001 limit id; one row per holder and its lease's end). */
export const SLOT_TABLES: readonly string[] = [
  "CREATE TABLE IF NOT EXISTS slots (id TEXT NOT NULL, holder TEXT NOT NULL, expires_at INTEGER NOT NULL, PRIMARY KEY (id, holder))",
];

/**
 * Version 2: penalty blocks (docs/rules.md, "Penalty box"), one row per
 * blocked counter (`id`: counter key U+0001 limit id, as in `counters`;
 * `until`: when the block ends, on the object's clock; `length_ms`: how
 * long it is from its start, so it began at until − length_ms). A table of
 * its own: the version 1 tables and their rows are unchanged, an object of
 * version 1 gets it on its next start, and a version 1 object (a rollback)
 * never reads it, so its blocks end early, nothing else.
 */
export const BLOCK_TABLES: readonly string[] = [
  "CREATE TABLE IF NOT EXISTS blocks (id TEXT PRIMARY KEY, until INTEGER NOT NULL, length_ms INTEGER NOT NULL) WITHOUT ROWID",
];
