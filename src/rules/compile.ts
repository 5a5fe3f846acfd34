/**
 * `rules.json` (already parsed) into CompiledRules, or every error found.
 */
import { domainContext } from "./context.ts";
import { readLevel, EMPTY_LEVEL } from "./descriptors.ts";
import { readEnum, readInt, readString, requireKey } from "./fields.ts";
import { BOUNDS, DUPLICATE_VALUES, IPV6_PREFIX, PLACEMENTS } from "./keys.ts";
import { asObject, checkKeys, Diagnostics, indexPath, jsonType, keyPath } from "./reader.ts";
import { readPathOptions } from "./paths.ts";
import { readRoutes } from "./routes.ts";
import { claimEntries, readJwt } from "./jwt.ts";
import type { CompiledDomain, CompiledRules, CompileResult } from "./types.ts";

export interface CompileOptions {
  /** How the summary line names the input; default `rules.json`. */
  readonly source?: string;
}

interface Totals {
  descriptors: number;
  limits: number;
  routes: number;
}

/**
 * Validate and compile a parsed rules file: one domain document or an array
 * of them. Never throws on bad input; every problem is reported with its path.
 *
 * @example
 * const result = compileRules({ domain: "api", descriptors: [
 *   { key: "remote_address", rate_limit: { unit: "minute", requests_per_unit: 60 } }] });
 * if (result.ok) result.summary; // "rules.json: 1 domain, 1 descriptor, 1 limit, 0 routes"
 * else result.errors;            // [{ path: "$.descriptors[0].rate_limit.unit", message: "..." }, ...]
 */
export function compileRules(input: unknown, options: CompileOptions = {}): CompileResult {
  const d = new Diagnostics();
  const totals: Totals = { descriptors: 0, limits: 0, routes: 0 };
  const documents: { value: unknown; path: string }[] = [];
  if (Array.isArray(input)) {
    if (input.length === 0) d.add("$", "expected at least one domain document");
    for (const [i, value] of input.entries()) documents.push({ value, path: indexPath("$", i) });
  } else if (typeof input === "object" && input !== null) {
    documents.push({ value: input, path: "$" });
  } else {
    d.add("$", `expected a domain document (an object) or an array of them, got ${jsonType(input)}`);
  }
  const domains = new Map<string, CompiledDomain>();
  const domainPaths = new Map<string, string>();
  for (const { value, path } of documents) {
    const { name, domain } = readDocument(d, value, path, totals);
    if (name === undefined) continue;
    const first = domainPaths.get(name);
    if (first !== undefined) {
      d.add(keyPath(path, "domain"), `duplicate domain "${name}" (already defined at ${first})`);
      continue;
    }
    domainPaths.set(name, path);
    if (domain !== undefined) domains.set(name, domain);
  }
  if (d.errors.length > 0) return { ok: false, errors: d.errors };
  const source = options.source ?? "rules.json";
  const summary =
    `${source}: ${count(domains.size, "domain")}, ${count(totals.descriptors, "descriptor")}, ` +
    `${count(totals.limits, "limit")}, ${count(totals.routes, "route")}`;
  return { ok: true, rules: Object.freeze({ domains }), summary };
}

// The name comes back even when the rest is invalid, so duplicates are still found.
function readDocument(d: Diagnostics, value: unknown, path: string, totals: Totals): { name?: string; domain?: CompiledDomain } {
  const obj = asObject(d, value, path);
  if (obj === undefined) return {};
  const before = d.errors.length;
  checkKeys(d, obj, path, "document");
  readString(d, obj, "$schema", path, null);
  requireKey(d, obj, "domain", path);
  const domain = readString(d, obj, "domain", path);
  const placement = readEnum(d, obj, "placement", path, PLACEMENTS, "placement") ?? "sharded";
  const shards = readInt(d, obj, "shards", path, 1, BOUNDS.maxShards);
  if (shards !== undefined && obj.placement === "per_key") {
    d.add(keyPath(path, "shards"), '"shards" only applies to placement "sharded"');
  }
  const paths = readPathOptions(d, obj, path);
  const duplicateValues = readEnum(d, obj, "duplicate_values", path, DUPLICATE_VALUES, "duplicate_values") ?? "reject";
  const ipv6Prefix = readInt(d, obj, "ipv6_prefix", path, IPV6_PREFIX.min, IPV6_PREFIX.max) ?? IPV6_PREFIX.default;
  const ctx = domainContext(d, ipv6Prefix);
  const root = Object.hasOwn(obj, "descriptors") ? readLevel(ctx, obj.descriptors, keyPath(path, "descriptors"), "", 1) : EMPTY_LEVEL;
  const routes = Object.hasOwn(obj, "routes") ? readRoutes(d, obj.routes, keyPath(path, "routes"), paths) : [];
  const jwt = readJwt(d, obj, path);
  const readsClaims = claimEntries(d, obj, path, Object.hasOwn(obj, "jwt"));
  for (const ref of ctx.replacesRefs) {
    if (!ctx.names.has(ref.name)) {
      const where = domain === undefined ? "this domain" : `domain "${domain}"`;
      d.add(ref.path, `no rate limit in ${where} is named "${ref.name}"`);
    }
  }
  if (domain === undefined || d.errors.length > before) return { name: domain };
  totals.descriptors += ctx.counts.descriptors;
  totals.limits += ctx.counts.limits;
  totals.routes += routes.length;
  const compiled: CompiledDomain = Object.freeze({
    domain,
    placement,
    shards: shards ?? BOUNDS.defaultShards,
    root,
    routes: Object.freeze(routes),
    paths,
    duplicateValues,
    ipv6Prefix,
    ...(jwt !== undefined ? { jwt } : {}),
    ...(readsClaims ? { readsClaims } : {}),
    ...(routes.some((route) => route.jsonPaths !== undefined) ? { readsJsonBody: true as const } : {}),
  });
  return { name: domain, domain: compiled };
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

/**
 * Rules fixed when the Worker is built (the bundled `rules.json`, a bench's
 * rules), compiled on first use and kept. Invalid rules throw an error that
 * names every problem, `<path>: <message>` a line.
 *
 * @example
 * export const bundledRules = compileOnce(rulesJson, "rules.json");
 * bundledRules().domains.get("api");
 */
export function compileOnce(input: unknown, source: string): () => CompiledRules {
  let compiled: CompiledRules | undefined;
  return () => {
    if (compiled !== undefined) return compiled;
    const result = compileRules(input, { source });
    if (!result.ok) throw new Error(`${source} is invalid:\n${result.errors.map((e) => `${e.path}: ${e.message}`).join("\n")}`);
    return (compiled = result.rules);
  };
}
