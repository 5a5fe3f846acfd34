/**
 * STORED FORMAT (docs/stored-formats.md): the SQLite tables of the
 * RulesObject: the uploaded rules, which every deploy after the upload reads.
 * Changed only as docs/stored-formats.md says: statements stay
 * `IF NOT EXISTS`, and both deploys read the rows.
 */

/** Version of the tables below: raised with any change of their statements or of what their rows hold. */
export const RULES_TABLES_VERSION = 1;

/** The head (one row: version, source, ISO time of the upload) and the uploaded text in chunks of at most RULES_CHUNK, in `seq` order. */
export const RULES_TABLES: readonly string[] = [
  "CREATE TABLE IF NOT EXISTS head (id INTEGER PRIMARY KEY CHECK (id = 0), version INTEGER NOT NULL, source TEXT NOT NULL, updated_at TEXT NOT NULL)",
  "CREATE TABLE IF NOT EXISTS chunks (seq INTEGER PRIMARY KEY, text TEXT NOT NULL)",
];

/** UTF-16 units per chunk: SQLite rows hold at most 2 MB, and 500 000 stay below it even as 3-byte UTF-8. */
export const RULES_CHUNK = 500_000;
