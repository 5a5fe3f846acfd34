/**
 * Maps an HTTP request to rate-limit descriptors with the compiled `routes`
 * of each domain (docs/rules.md, "Routes"): the first matching route of a domain
 * wins, and a descriptor with an entry that has no value is skipped.
 */
// @ts-nocheck

import { matchRoute } from "../rules/index.ts";
import type { CompiledRoute, CompiledRules, DescriptorEntry, DomainDescriptors, EntrySource } from "../rules/types.ts";
import { clientAddress } from "./client-ip.ts";
import { requestCost } from "./cost.ts";
import { urlParts } from "../http/url-parts.ts";

/** The request facts entry sources read; the client IP is resolved lazily. */
interface RequestFacts {
  readonly request: Request;
  readonly href: string;
  /** Built only for a query source. */
  url?: URL;
  // Read once: each URL or Request getter is a call into the runtime.
  readonly path: string;
  readonly host: string;
  readonly method: string;
  readonly trustedProxyHops: number;
  headers?: Headers;
  clientIp?: string;
  cookies?: Map<string, string>;
}

/** How to read the request; see `clientAddress` for the proxy setting. */
export interface MappingOptions {
  /** `TRUSTED_PROXY_HOPS`: proxies of yours in front of Cloudflare (default 0: only CF-Connecting-IP). */
  readonly trustedProxyHops?: number;
}

/**
 * Descriptors for every domain that has a route matching the request.
 *
 * @example
 * const perDomain = requestDescriptors(rules, new Request("http://x/login", { method: "POST" }));
 * // [{ domain, descriptors: [[{ key: "path", value: "/login" }, { key: "remote_address", value: "unknown" }]] }]
 */
export function requestDescriptors(rules: CompiledRules, request: Request, options: MappingOptions = {}): DomainDescriptors[] {
  const href = request.url;
  const { path, host } = urlParts(href);
  const facts: RequestFacts = { request, href, path, host, method: request.method, trustedProxyHops: options.trustedProxyHops ?? 0 };
  const out: DomainDescriptors[] = [];
  const target = { method: facts.method, path: facts.path, host: facts.host };
  for (const domain of rules.domains.values()) {
    const route = matchRoute(domain.routes, target);
    if (!route) continue;
    const descriptors: DescriptorEntry[][] = [];
    for (const spec of route.descriptors) {
      const entries: DescriptorEntry[] = [];
      for (const entry of spec) {
        const value = sourceValue(entry.source, facts);
        if (value === undefined) break;
        entries.push({ key: entry.key, value });
      }
      if (entries.length === spec.length) descriptors.push(entries);
    }
    if (descriptors.length === 0) continue;
    if (route.cost === undefined && route.costFromResponse === undefined) out.push({ domain, descriptors });
    else out.push(withCost({ domain, descriptors }, route, facts));
  }
  return out;
}

// Every descriptor of the route charges the route's cost; a missing or bad value throws RequestCostError.
function withCost(found: DomainDescriptors, route: CompiledRoute, facts: RequestFacts): DomainDescriptors {
  const { cost, costFromResponse } = route;
  const n = cost === undefined ? undefined : requestCost(cost, headersOf(facts), facts.request.body !== null);
  return {
    ...found,
    ...(n !== undefined ? { costs: found.descriptors.map(() => n) } : {}),
    ...(cost?.kind === "body_bytes" ? { quotaUnit: "content-bytes" as const } : {}),
    ...(costFromResponse !== undefined ? { costFromResponse } : {}),
  };
}

function sourceValue(source: EntrySource, facts: RequestFacts): string | undefined {
  switch (source.kind) {
    case "value":
      return source.value;
    case "header":
      return headersOf(facts).get(source.name) ?? undefined;
    case "query":
      return (facts.url ??= new URL(facts.href)).searchParams.get(source.name) ?? undefined;
    case "cookie":
      return (facts.cookies ??= parseCookies(headersOf(facts).get("cookie"))).get(source.name);
    case "remote_address":
      return (facts.clientIp ??= clientAddress(headersOf(facts), facts.trustedProxyHops));
    case "path":
      return facts.path;
    case "method":
      return facts.method.toUpperCase();
    case "host":
      return facts.host.toLowerCase();
  }
}

// Each read of `request.headers` is a call into the runtime: once per request.
function headersOf(facts: RequestFacts): Headers {
  return (facts.headers ??= facts.request.headers);
}

/**
 * Parse a Cookie header into name → value (first occurrence wins, as browsers send the most specific first).
 *
 * @example
 * parseCookies("a=1; session=xyz").get("session"); // "xyz"
 */
export function parseCookies(header: string | null): Map<string, string> {
  const cookies = new Map<string, string>();
  if (!header) return cookies;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    if (name && !cookies.has(name)) cookies.set(name, part.slice(eq + 1).trim());
  }
  return cookies;
}
