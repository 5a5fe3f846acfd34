/**
 * The overrides' rows in the RulesObject's SQLite (src/stored/override-tables.ts):
 * read, written and versioned. Every change raises the version, which
 * isolates poll with the rules' (docs/admin-api.md, "Overrides").
 */
import type { OverridesRecord, StoredOverride } from "../../overrides/types.ts";

/** Most overrides one domain may have: every isolate holds them all, compiled. */
export const MAX_OVERRIDES_PER_DOMAIN = 10_000;
/** Most overrides in all: one poll carries them all across RPC (about 300 bytes each, far below its 32 MiB). */
export const MAX_OVERRIDES_TOTAL = 20_000;
/**
 * Most bytes (UTF-8) of every override's stored text together: one poll
 * carries them all to every isolate, beside rules of up to 4 MiB, within
 * RPC's 32 MiB (test/overrides/bounds.test.ts polls a table filled to it).
 */
export const MAX_OVERRIDES_BYTES = 8 * 1024 * 1024;

// A row's stored text in bytes, as SQLite counts a BLOB of it.
const ROW_BYTES =
  "length(CAST(domain AS BLOB)) + length(CAST(descriptor AS BLOB)) + length(CAST(rate_limit AS BLOB)) + " +
  "coalesce(length(CAST(note AS BLOB)), 0) + coalesce(length(CAST(expires_at AS BLOB)), 0) + length(CAST(updated_at AS BLOB))";

const encoder = new TextEncoder();

/**
 * The bytes (UTF-8) of one override's stored text, as the total bound counts them.
 *
 * @example
 * overrideBytes({ domain: "api", descriptor: "user=acme", rate_limit: '{"unlimited":true}', expires_at: null, note: null, updated_at: "2026-11-27T00:00:00.000Z" }); // 52
 */
export function overrideBytes(row: StoredOverride): number {
  const text = row.domain + row.descriptor + row.rate_limit + (row.note ?? "") + (row.expires_at ?? "") + row.updated_at;
  return encoder.encode(text).length;
}

type Row = { domain: string; descriptor: string; rate_limit: string; expires_at: string | null; note: string | null; updated_at: string };

/**
 * The overrides' version (0 before any change).
 *
 * @example
 * overridesVersion(sql); // 3
 */
export function overridesVersion(sql: SqlStorage): number {
  return sql.exec<{ version: number }>("SELECT version FROM overrides_head").toArray()[0]?.version ?? 0;
}

/**
 * Every override, or undefined when `known` is already the version.
 *
 * @example
 * overridesSince(sql, 2); // { version: 3, rows: [...] }
 */
export function overridesSince(sql: SqlStorage, known: number): OverridesRecord | undefined {
  const version = overridesVersion(sql);
  if (version === known) return undefined;
  return { version, rows: sql.exec<Row>("SELECT * FROM overrides ORDER BY domain, descriptor").toArray().map(fromRow) };
}

/**
 * One domain's overrides, in descriptor order.
 *
 * @example
 * listOverrides(sql, "api"); // [{ domain: "api", descriptor: "user=acme", ... }]
 */
export function listOverrides(sql: SqlStorage, domain: string): StoredOverride[] {
  return sql.exec<Row>("SELECT * FROM overrides WHERE domain = ? ORDER BY descriptor", domain).toArray().map(fromRow);
}

/**
 * How many overrides a domain has, and all domains together, and their
 * stored bytes, leaving out the one named (it would be replaced, not added).
 *
 * @example
 * overrideCounts(sql, "api", "user=acme"); // { domain: 41, total: 97, bytes: 20_480 }
 */
export function overrideCounts(sql: SqlStorage, domain: string, descriptor: string): { domain: number; total: number; bytes: number } {
  const count = (where: string, ...args: string[]) => sql.exec<{ n: number }>(`SELECT count(*) AS n FROM overrides ${where}`, ...args).one().n;
  const bytes = (where: string, ...args: string[]) =>
    sql.exec<{ n: number | null }>(`SELECT sum(${ROW_BYTES}) AS n FROM overrides ${where}`, ...args).one().n ?? 0;
  const self = count("WHERE domain = ? AND descriptor = ?", domain, descriptor);
  const selfBytes = self === 0 ? 0 : bytes("WHERE domain = ? AND descriptor = ?", domain, descriptor);
  return { domain: count("WHERE domain = ?", domain) - self, total: count("") - self, bytes: bytes("") - selfBytes };
}

/**
 * Store (or replace) one override and drop those expired by `nowIso`; the version goes up.
 *
 * @example
 * writeOverride(sql, row, new Date().toISOString()); // 4
 */
export function writeOverride(sql: SqlStorage, row: StoredOverride, nowIso: string): number {
  // Expired overrides apply to nothing: each write drops them, so they do not hold places under the bounds.
  sql.exec("DELETE FROM overrides WHERE expires_at IS NOT NULL AND expires_at <= ?", nowIso);
  sql.exec(
    "INSERT OR REPLACE INTO overrides (domain, descriptor, rate_limit, expires_at, note, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
    row.domain,
    row.descriptor,
    row.rate_limit,
    row.expires_at,
    row.note,
    row.updated_at,
  );
  return bump(sql);
}

/**
 * Remove one override; the new version, or undefined when there was none.
 *
 * @example
 * removeOverride(sql, "api", "user=acme"); // 5
 */
export function removeOverride(sql: SqlStorage, domain: string, descriptor: string): number | undefined {
  const removed = sql.exec("DELETE FROM overrides WHERE domain = ? AND descriptor = ?", domain, descriptor).rowsWritten;
  return removed === 0 ? undefined : bump(sql);
}

function bump(sql: SqlStorage): number {
  const version = overridesVersion(sql) + 1;
  sql.exec("INSERT OR REPLACE INTO overrides_head (id, version) VALUES (0, ?)", version);
  return version;
}

function fromRow(row: Row): StoredOverride {
  return { domain: row.domain, descriptor: row.descriptor, rate_limit: row.rate_limit, expires_at: row.expires_at, note: row.note, updated_at: row.updated_at };
}
