/**
 * `scope` of a rate limit (docs/placement.md): `global` (the default), one
 * counter for the planet, exact; or `region`, one counter per region the
 * key's requests arrive in, decided there (a key seen in R regions may get
 * up to R × the limit).
 */
import { readEnum } from "./fields.ts";
import { SCOPES } from "./keys.ts";
import { type Diagnostics, indexPath, type JsonObject, keyPath } from "./reader.ts";
import type { CompiledLimit } from "./types.ts";

/**
 * The `scope` of the rate limit `obj` at `path`; undefined when absent or invalid (the error recorded).
 *
 * @example
 * readScope(d, { scope: "region" }, "$.descriptors[0].rate_limit"); // "region"
 * readScope(d, { scope: "regional" }, "$.descriptors[0].rate_limit"); // undefined; error 'unknown scope "regional" (did you mean "region"?)'
 */
export function readScope(d: Diagnostics, obj: JsonObject, path: string): (typeof SCOPES)[number] | undefined {
  return readEnum(d, obj, "scope", path, SCOPES, "scope");
}

/**
 * `limit` with its scope: only `region` is recorded, so a global limit
 * compiles exactly as it did before scopes existed.
 *
 * @example
 * withScope(limit, "region").scope; // "region"
 */
export function withScope(limit: CompiledLimit, scope: (typeof SCOPES)[number] | undefined): CompiledLimit {
  return scope === "region" ? Object.freeze({ ...limit, scope }) : limit;
}

/**
 * The windows of one node share one counter call, and so one key and one
 * object: they must share one scope. `list` is the node's `rate_limits` as
 * written (so the error names the entry's own index), `at` its path. Only
 * valid scopes are compared; an invalid one has its own error.
 *
 * @example
 * checkScopeMix(d, [{ unit: "second", requests_per_unit: 1 }, { unit: "day", requests_per_unit: 9, scope: "region" }], "$.descriptors[0].rate_limits");
 * // error at $.descriptors[0].rate_limits[1].scope
 */
export function checkScopeMix(d: Diagnostics, list: readonly unknown[], at: string): void {
  const scopes = list.map(scopeAsWritten);
  const first = scopes.find((scope) => scope !== undefined);
  const odd = scopes.findIndex((scope) => scope !== undefined && scope !== first);
  if (odd < 0) return;
  d.add(
    keyPath(indexPath(at, odd), "scope"),
    `every rate limit of one descriptor must have the same "scope" ("${first}" before, "${scopes[odd]}" here): they share one counter; put the other scope's windows on a descriptor of their own`,
  );
}

function scopeAsWritten(item: unknown): (typeof SCOPES)[number] | undefined {
  if (typeof item !== "object" || item === null || Array.isArray(item)) return undefined;
  const scope = Object.hasOwn(item, "scope") ? (item as JsonObject).scope : "global";
  return (SCOPES as readonly unknown[]).includes(scope) ? (scope as (typeof SCOPES)[number]) : undefined;
}
