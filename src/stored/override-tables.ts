/**
 * STORED FORMAT (docs/stored-formats.md): the SQLite tables of the
 * overrides (`PUT /__ratelimit/overrides`), kept in the RulesObject beside
 * the rules. Changed only as docs/stored-formats.md says: statements stay
 * `IF NOT EXISTS`, and both deploys read the rows.
 */

/** Version of the tables below: raised with any change of their statements or of what their rows hold. */
export const OVERRIDES_VERSION = 1;

/**
 * The overrides' version (one row; +1 per change, so isolates poll it with
 * the rules'), and one row per override: its domain, its descriptor in the
 * canonical `k=v,k2=v2*` form, its `rate_limit` as JSON text (validated
 * again when compiled), its expiry as an ISO time or NULL, its note, and
 * when it was stored.
 */
export const OVERRIDE_TABLES: readonly string[] = [
  "CREATE TABLE IF NOT EXISTS overrides_head (id INTEGER PRIMARY KEY CHECK (id = 0), version INTEGER NOT NULL)",
  "CREATE TABLE IF NOT EXISTS overrides (domain TEXT NOT NULL, descriptor TEXT NOT NULL, rate_limit TEXT NOT NULL, expires_at TEXT, note TEXT, updated_at TEXT NOT NULL, PRIMARY KEY (domain, descriptor))",
];

/** One override row as read back (`GET /__ratelimit/overrides` lists it with `rate_limit` parsed). */
export interface StoredOverride {
  readonly domain: string;
  /** Canonical `k=v,k2=v2` text; a trailing raw `*` on the last value makes it a wildcard. */
  readonly descriptor: string;
  /** The `rate_limit` object as given (a rate limit, or `{"unlimited": true}`), as JSON text. */
  readonly rate_limit: string;
  /** ISO-8601 time from which it no longer applies; null: never expires. */
  readonly expires_at: string | null;
  readonly note: string | null;
  /** ISO time it was stored. */
  readonly updated_at: string;
}

/** Every override of every domain at one version: what an isolate's check receives. */
export interface OverridesRecord {
  /** +1 per stored or removed override; 0 before any. */
  readonly version: number;
  readonly rows: readonly StoredOverride[];
}
