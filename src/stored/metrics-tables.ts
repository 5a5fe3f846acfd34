/**
 * STORED FORMAT (docs/stored-formats.md): the SQLite tables of the
 * MetricsObject: metric samples and the dashboard's traffic history. Changed only as docs/stored-formats.md
 * says: statements stay `IF NOT EXISTS`, and both deploys read the rows.
 */

/** Version of the tables below: raised with any change of their statements or of what their rows hold. */
export const METRICS_TABLES_VERSION = 1;

/** Metric samples, summed per series (`labels`: JSON pairs), with when each was last seen. */
export const SAMPLES_TABLE =
  "CREATE TABLE IF NOT EXISTS samples (id TEXT PRIMARY KEY, name TEXT NOT NULL, labels TEXT NOT NULL, value REAL NOT NULL, seen_at INTEGER NOT NULL DEFAULT 0)";

/** `seen_at` came later: a table from before gets it (the statement fails where it is there already). */
export const SAMPLES_SEEN_AT_COLUMN = "ALTER TABLE samples ADD COLUMN seen_at INTEGER NOT NULL DEFAULT 0";

/** Policies seen (`ref`: JSON), per-policy count buckets (`counts`: JSON) and heavy-hitter sketches (`data`: JSON). */
export const TRAFFIC_TABLES: readonly string[] = [
  "CREATE TABLE IF NOT EXISTS traffic_policies (id TEXT PRIMARY KEY, ref TEXT NOT NULL)",
  "CREATE TABLE IF NOT EXISTS traffic_buckets (policy TEXT, slot INTEGER, bucket INTEGER, counts TEXT, PRIMARY KEY (policy, slot))",
  "CREATE TABLE IF NOT EXISTS traffic_sketches (policy TEXT, span TEXT, slot INTEGER, period INTEGER, data TEXT, PRIMARY KEY (policy, span, slot))",
];

/**
 * Sends not yet folded into the tables above, as deploys before the
 * per-30-s fold wrote them (docs/metrics.md, "Where counts go"): one row per
 * send (`samples`, `traffic`: JSON as sent; `at`: when it came), in
 * SENDS_PER_FOLD slots reused round-robin (`seq` orders them), and the last
 * send folded. This deploy applies and folds what such a deploy left, and
 * writes no send rows itself.
 */
export const SENDS_TABLES: readonly string[] = [
  "CREATE TABLE IF NOT EXISTS sends (slot INTEGER PRIMARY KEY, seq INTEGER NOT NULL, at INTEGER NOT NULL, samples TEXT NOT NULL, traffic TEXT)",
  "CREATE TABLE IF NOT EXISTS sends_folded (id INTEGER PRIMARY KEY, seq INTEGER NOT NULL)",
];

/** Sends between two folds: the `sends` table's slots. */
export const SENDS_PER_FOLD = 64;
