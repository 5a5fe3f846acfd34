/**
 * STORED FORMAT (docs/stored-formats.md): the SQLite tables of the
 * MetricsObject's traffic history. Changed only as docs/stored-formats.md
 * says: statements stay `IF NOT EXISTS`, and both deploys read the rows.
 */

/** Version of the tables below: raised with any change of their statements or of what their rows hold. */
export const TRAFFIC_TABLES_VERSION = 1;

/** Policies seen (`ref`: JSON), per-policy count buckets (`counts`: JSON) and heavy-hitter sketches (`data`: JSON). */
export const TRAFFIC_TABLES: readonly string[] = [
  "CREATE TABLE IF NOT EXISTS traffic_policies (id TEXT PRIMARY KEY, ref TEXT NOT NULL)",
  "CREATE TABLE IF NOT EXISTS traffic_buckets (policy TEXT, slot INTEGER, bucket INTEGER, counts TEXT, PRIMARY KEY (policy, slot))",
  "CREATE TABLE IF NOT EXISTS traffic_sketches (policy TEXT, span TEXT, slot INTEGER, period INTEGER, data TEXT, PRIMARY KEY (policy, span, slot))",
];
