/**
 * An override's `rate_limit`, read by the rules' own reader
 * (src/rules/limit.ts), so it is validated exactly as one in `rules.json`,
 * except `replaces`: an override replaces the limits of the descriptor it
 * names, never a named limit elsewhere.
 */
import { domainContext } from "../rules/context.ts";
import type { LimitResult } from "../rules/limit.ts";
import { readRateLimit } from "../rules/limit.ts";
import { type Diagnostics, keyPath } from "../rules/reader.ts";

/**
 * Read `value` as an override's rate limit at `path`; `label` (the
 * descriptor text) names a limit without a `name`. Errors go to `d`.
 *
 * @example
 * readOverrideLimit(d, { unit: "minute", requests_per_unit: 1000 }, "$.rate_limit", "user=acme");
 * // { kind: "limit", limit: { name: "user=acme:1000/1m", ... } }
 */
export function readOverrideLimit(d: Diagnostics, value: unknown, path: string, label: string): LimitResult | undefined {
  if (typeof value === "object" && value !== null && Object.hasOwn(value, "replaces")) {
    d.add(keyPath(path, "replaces"), '"replaces" is not allowed in an override: it replaces the limits of the descriptor it names');
  }
  const before = d.errors.length;
  const result = readRateLimit(domainContext(d), value, path, label, false);
  return d.errors.length > before ? undefined : result;
}
