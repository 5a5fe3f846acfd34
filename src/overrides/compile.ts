/**
 * Overrides compiled once per version into an immutable index per domain
 * (types.ts, OverrideTable): each one's limit read by the rules' reader,
 * given a node of its own, and filed by exact key or by wildcard prefix.
 */
import { EMPTY_LEVEL } from "../rules/descriptors.ts";
import { limitFacts } from "../rules/facts.ts";
import { Diagnostics } from "../rules/reader.ts";
import type { CompiledLimit, CompiledNode } from "../rules/types.ts";
import { exactKey, headKey, parsePattern } from "./descriptor.ts";
import { readOverrideLimit } from "./limit.ts";
import type { CompiledOverride, OverrideTable, StoredOverride } from "./types.ts";

/**
 * One table per domain that has overrides. A row a newer validator refuses
 * (it was valid when stored) is left out with a log line, never thrown.
 *
 * @example
 * const tables = compileOverrides(record.rows);
 * tables.get("api")?.exact.size; // 1
 */
export function compileOverrides(rows: readonly StoredOverride[]): ReadonlyMap<string, OverrideTable> {
  const building = new Map<string, { exact: Map<string, CompiledOverride>; wildcard: Map<string, CompiledOverride>; lengths: Set<number> }>();
  for (const row of rows) {
    const compiled = compileRow(row);
    if (compiled === undefined) continue;
    let table = building.get(row.domain);
    if (table === undefined) building.set(row.domain, (table = { exact: new Map(), wildcard: new Map(), lengths: new Set() }));
    const { entries, wildcard } = compiled.pattern;
    if (!wildcard) table.exact.set(exactKey(entries), compiled.override);
    else {
      const prefix = entries[entries.length - 1].value;
      table.wildcard.set(`${headKey(entries)}\u0000${prefix}`, compiled.override);
      table.lengths.add(prefix.length);
    }
  }
  const tables = new Map<string, OverrideTable>();
  for (const [domain, t] of building) {
    const prefixLengths = Object.freeze([...t.lengths].sort((a, b) => b - a));
    tables.set(domain, Object.freeze({ exact: t.exact, wildcard: t.wildcard, prefixLengths, size: t.exact.size + t.wildcard.size }));
  }
  return tables;
}

function compileRow(row: StoredOverride) {
  const parsed = parsePattern(row.descriptor);
  const d = new Diagnostics();
  const result = parsed.ok ? readOverrideLimit(d, parseJson(row.rate_limit), "$.rate_limit", row.descriptor) : undefined;
  const expiresAtMs = row.expires_at === null ? Infinity : Date.parse(row.expires_at);
  if (!parsed.ok || result === undefined || Number.isNaN(expiresAtMs)) {
    const errors = parsed.ok ? d.errors.slice(0, 10) : [{ path: "$.descriptor", message: parsed.message }];
    console.error(JSON.stringify({ event: "floodgate.stored_override_invalid", domain: row.domain, descriptor: row.descriptor, errors }));
    return undefined;
  }
  const { entries, wildcard } = parsed.pattern;
  const limits: readonly CompiledLimit[] = result.kind === "limit" ? Object.freeze([result.limit]) : Object.freeze([]);
  const last = entries[entries.length - 1];
  // Envoy's stat path, as a rules node's: `key_value` per level, the wildcard's pattern as its value.
  const statKey = entries.map((e, i) => `${e.key}_${e.value}${i === entries.length - 1 && wildcard ? "*" : ""}`).join(".");
  const node: CompiledNode = Object.freeze({
    key: last.key,
    value: wildcard ? `${last.value}*` : last.value,
    limits,
    facts: limitFacts(limits),
    unlimited: result.kind === "unlimited",
    shadowMode: false,
    detailedMetric: false,
    statKey,
    children: EMPTY_LEVEL,
  });
  const info = Object.freeze({ descriptor: row.descriptor, expires_at: row.expires_at, note: row.note });
  const override: CompiledOverride = Object.freeze({ info, expiresAtMs, node, limits, unlimited: node.unlimited });
  return { pattern: parsed.pattern, override };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
