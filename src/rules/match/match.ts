/**
 * Request-time lookups in compiled rules: descriptor → limits (Envoy
 * semantics), `replaces` across one request's descriptors, and routes.
 */
import { RANGE_KEY } from "./cidr-values.ts";
import type { CompiledDomain, CompiledLimit, CompiledNode, CompiledRoute, DescriptorEntry, DescriptorLevel, DescriptorMatch } from "../types.ts";

/**
 * The node one request descriptor selects, and what it enforces.
 *
 * Level by level, an entry takes the exact key+value node, else (for
 * `remote_address`) the longest address range holding its value, else the
 * first wildcard node of its key (file order), else the key-only node; there
 * is no backtracking, as in Envoy. Only a node at the descriptor's own depth
 * matches. `undefined` means no node: the descriptor is not limited. The
 * match carries `quotaMode` and, past a `share_threshold` node, the entries
 * that name the shared counter (docs/rules.md).
 *
 * @example
 * const m = matchDescriptor(domain, [{ key: "path", value: "/login" }, { key: "remote_address", value: "192.0.2.1" }]);
 * m?.limits.map((l) => l.name); // ["path=/login,remote_address:1/1s", "path=/login,remote_address:100/1d"]
 * m?.unlimited;                 // false
 */
export function matchDescriptor(domain: CompiledDomain, entries: readonly DescriptorEntry[]): DescriptorMatch | undefined {
  if (entries.length === 0) return undefined;
  let level: DescriptorLevel = domain.root;
  let node: CompiledNode | undefined;
  let shared: DescriptorEntry[] | undefined;
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i];
    if (node !== undefined) level = node.children;
    node = findNode(level, entry);
    if (node === undefined) return undefined;
    // Envoy share_threshold: the matching pattern, not the request's value, names the counter.
    if (node.shareThreshold && node.value !== undefined && node.value !== entry.value) {
      (shared ??= entries.slice())[i] = { key: entry.key, value: node.value };
    }
  }
  const found = node as CompiledNode;
  const match: DescriptorMatch = { node: found, limits: found.limits, unlimited: found.unlimited, shadowMode: found.shadowMode };
  if (found.quotaMode !== true && shared === undefined) return match;
  return { ...match, ...(found.quotaMode ? { quotaMode: true } : {}), ...(shared ? { counterEntries: shared } : {}) };
}

function findNode(level: DescriptorLevel, entry: DescriptorEntry): CompiledNode | undefined {
  const exact = level.exact.get(`${entry.key}\u0000${entry.value}`);
  if (exact !== undefined) return exact;
  if (level.ranges !== undefined && entry.key === RANGE_KEY) {
    const range = level.ranges.lookup(entry.value);
    if (range !== undefined) return range;
  }
  const wildcards = level.wildcards.get(entry.key);
  if (wildcards !== undefined) {
    for (const wildcard of wildcards) {
      if (wildcard.matches(entry.value)) return wildcard.node;
    }
  }
  return level.keyOnly.get(entry.key);
}

/**
 * Envoy `replaces` across the descriptors of one request: every name listed
 * in `replaces` by any matched limit (an `unlimited` one included) drops the
 * matched limits that carry that explicit name. Returns the limits still to
 * enforce, one array per input position (empty for `undefined`).
 *
 * @example
 * // "vip" replaces "per-ip": a request matching both is only counted by "vip".
 * const [perIp, vip] = applyReplaces([matchPerIp, matchVip]);
 * perIp; // []
 * vip;   // [vipLimit]
 */
export function applyReplaces(matches: readonly (DescriptorMatch | undefined)[]): (readonly CompiledLimit[])[] {
  let replaced: Set<string> | undefined;
  for (const match of matches) {
    if (match === undefined) continue;
    for (const limit of match.limits) {
      for (const name of limit.replaces) (replaced ??= new Set()).add(name);
    }
    for (const name of match.node.unlimitedReplaces ?? []) (replaced ??= new Set()).add(name);
  }
  return matches.map((match) => {
    if (match === undefined) return [];
    if (replaced === undefined) return match.limits;
    const names = replaced;
    return match.limits.some((l) => l.named && names.has(l.name)) ? match.limits.filter((l) => !(l.named && names.has(l.name))) : match.limits;
  });
}

/** What a route matcher looks at. `host` is the host name without port. */
export interface RouteRequest {
  readonly method: string;
  /** The canonical path in the domain's form (`domainPath`, docs/rules.md "Canonical paths"). */
  readonly path: string;
  readonly host: string;
}

/**
 * The first route of `routes` that matches (docs/rules.md, "Routes": the first matching route
 * wins). Methods compare upper-cased, hosts case-insensitively. A HEAD
 * request also matches a route for GET: origins answer it with the GET
 * handler (docs/rules.md, "The origin's view").
 *
 * @example
 * matchRoute(domain.routes, { method: "post", path: "/login", host: "api.example.com" })?.descriptors.length; // 1
 */
export function matchRoute(routes: readonly CompiledRoute[], request: RouteRequest): CompiledRoute | undefined {
  const method = request.method.toUpperCase();
  return routes.find(
    (route) =>
      (route.methods === undefined || route.methods.has(method) || (method === "HEAD" && route.methods.has("GET"))) &&
      (route.path === undefined || route.path(request.path)) &&
      (route.host === undefined || route.host(request.host)),
  );
}
