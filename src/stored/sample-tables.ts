/**
 * STORED FORMAT (docs/stored-formats.md): the traffic sample's table in each
 * MetricsObject (docs/advisor.md, "Sample"). Changed only as
 * docs/stored-formats.md says: the statement stays `IF NOT EXISTS`, and both
 * deploys read the rows.
 */

/** Version of the table below: raised with any change of its statement or of what its rows hold. */
export const SAMPLE_TABLES_VERSION = 1;

/**
 * One row per (send, domain): `rows` is the JSON array of that send's
 * sample rows of `domain` (each with its own `v`, src/advisor/sample-row.ts),
 * oldest first; `t_first`/`t_last` their first and last `t`, `count` how
 * many. `seq` orders the batches (oldest dropped first). No index beside the
 * primary key: every write is one row.
 */
export const SAMPLE_TABLE =
  "CREATE TABLE IF NOT EXISTS sample_batches (seq INTEGER PRIMARY KEY, domain TEXT NOT NULL, t_first INTEGER NOT NULL, t_last INTEGER NOT NULL, count INTEGER NOT NULL, rows TEXT NOT NULL)";
