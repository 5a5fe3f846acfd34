/**
 * Maps an HTTP request to rate-limit descriptors with the compiled `routes`
 * of each domain (docs/rules.md, "Routes"): the first matching route of a domain
 * wins, and a descriptor with an entry that has no value is skipped. Routes
 * and the `path` key read the canonical path (docs/rules.md, "Canonical paths").
 * A query parameter or cookie sent twice with different values is refused
 * (DuplicateValueError) unless the domain's `duplicate_values` picks one:
 * keyed on one copy while the origin reads another, it would escape its limit.
 */
import { DEFAULT_SETTINGS } from "../config.ts";
import { matchRoute } from "../rules/index.ts";
import type { CompiledDomain, CompiledRoute, CompiledRules, DescriptorEntry, DomainDescriptors, EntrySource, JsonPath } from "../rules/types.ts";
import { type ClientIp, clientIp, clientKey, type TrustedProxyHeader } from "./client-ip.ts";
import { requestCost } from "./cost.ts";
import { scalarAt } from "./json-body.ts";
import { urlParts } from "../http/url-parts.ts";
import { canonicalPath, foldPathCase } from "../http/canonical-path.ts";
import {
  cookieValue,
  DuplicateValueError,
  type EncodedSlashes,
  headerValue,
  hyphenName,
  methodKey,
  type MethodOverride,
  originHost,
  originMethod,
  originPath,
  underscoreHeaders,
} from "./origin-view.ts";

export { AmbiguousRequestError, DuplicateValueError } from "./origin-view.ts";

/** The request facts entry sources read; the client IP is resolved lazily. */
interface RequestFacts {
  readonly request: Request;
  readonly href: string;
  /** Built only for a query source. */
  url?: URL;
  // Read once: each URL or Request getter is a call into the runtime.
  /** The canonical path, case as sent; made once per request. */
  readonly canonical: string;
  /** `canonical` case-folded, made for the first domain that folds case. */
  folded?: string;
  /** The path in the form of the domain being mapped. */
  path: string;
  readonly host: string;
  readonly method: string;
  readonly trustedProxyHops: number;
  trustedProxyHeader?: TrustedProxyHeader;
  claims?: MappingOptions["claims"];
  /** The parsed JSON body (`MappingOptions.jsonBody`). */
  jsonBody?: unknown;
  headers?: Headers;
  clientIp?: ClientIp;
  cookies?: Map<string, string[]>;
  /** Headers sent under an underscore spelling, by hyphen name; read once, for the first header source. */
  underscored?: Map<string, string[]>;
}

/** How to read the request; see `clientAddress` for the proxy setting. */
export interface MappingOptions {
  /** `TRUSTED_PROXY_HOPS`: proxies of yours in front of Cloudflare (unset: the settings table's default). */
  readonly trustedProxyHops?: number;
  /** `TRUSTED_PROXY_HEADER`: the one header the proxies write the address into (unset: the table's default). */
  readonly trustedProxyHeader?: TrustedProxyHeader;
  /** `METHOD_OVERRIDE`: whether a POST keys on the method its override header names (unset: the table's default). */
  readonly methodOverride?: MethodOverride;
  /** `ENCODED_SLASHES`: how `%2F` and `%5C` in a path are read (unset: the table's default). */
  readonly encodedSlashes?: EncodedSlashes;
  /**
   * The string and number claims of the request's verified token under a domain's `jwt`
   * (src/identity/), or undefined: then every `jwt_claim` entry has no value.
   */
  readonly claims?: (domain: CompiledDomain) => ReadonlyMap<string, string> | undefined;
  /**
   * The request's parsed JSON body, read by `readJsonBody` when a matched route
   * reads it (`jsonBodyPaths`); absent: every `json_body` entry has no value
   * and a `json_body` cost is its default (docs/llm.md).
   */
  readonly jsonBody?: unknown;
}

/**
 * Descriptors for every domain that has a route matching the request.
 *
 * @example
 * const perDomain = requestDescriptors(rules, new Request("http://x/login", { method: "POST" }));
 * // [{ domain, descriptors: [[{ key: "path", value: "/login" }, { key: "remote_address", value: "unknown" }]] }]
 */
export function requestDescriptors(rules: CompiledRules, request: Request, options: MappingOptions = {}): DomainDescriptors[] {
  const facts = requestFacts(request, options);
  const out: DomainDescriptors[] = [];
  for (const domain of rules.domains.values()) {
    facts.path = domain.paths.caseSensitive ? facts.canonical : (facts.folded ??= foldPathCase(facts.canonical));
    const route = matchRoute(domain.routes, facts);
    if (!route) continue;
    const descriptors: DescriptorEntry[][] = [];
    for (const spec of route.descriptors) {
      const entries: DescriptorEntry[] = [];
      for (const entry of spec) {
        const value = sourceValue(entry.source, facts, domain);
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

/**
 * The dotted paths of the JSON body that the routes `request` matches read
 * (none: its body need not be read). Only worth asking when some domain
 * `readsJsonBody`.
 *
 * @example
 * const paths = jsonBodyPaths(rules, request, settings); // [["model"], ["max_tokens"]]
 * const body = paths.length > 0 ? await readJsonBody(request, settings.maxJsonBodyBytes, paths) : undefined;
 */
export function jsonBodyPaths(rules: CompiledRules, request: Request, options: MappingOptions = {}): JsonPath[] {
  const facts = requestFacts(request, options);
  const paths: JsonPath[] = [];
  for (const domain of rules.domains.values()) {
    if (domain.readsJsonBody !== true) continue;
    facts.path = domain.paths.caseSensitive ? facts.canonical : (facts.folded ??= foldPathCase(facts.canonical));
    const route = matchRoute(domain.routes, facts);
    if (route?.jsonPaths !== undefined) paths.push(...route.jsonPaths);
  }
  return paths;
}

/**
 * The domains whose route matching `request` reads a `jwt_claim`: only
 * their tokens are verified (docs/rules.md, "Verified identity (jwt)"), so a
 * request is never held up by a domain whose route keys on no claim.
 *
 * @example
 * const domains = claimDomains(rules, request, isolate.settings);
 * if (domains.length > 0) claims = await requestClaims(rules, request, env, Date.now(), domains);
 */
export function claimDomains(rules: CompiledRules, request: Request, options: MappingOptions = {}): CompiledDomain[] {
  let facts: RequestFacts | undefined;
  const found: CompiledDomain[] = [];
  for (const domain of rules.domains.values()) {
    if (!domain.readsClaims || domain.jwt === undefined) continue;
    facts ??= requestFacts(request, options);
    facts.path = domain.paths.caseSensitive ? facts.canonical : (facts.folded ??= foldPathCase(facts.canonical));
    const route = matchRoute(domain.routes, facts);
    if (route?.descriptors.some((spec) => spec.some((entry) => entry.source.kind === "jwt_claim"))) found.push(domain);
  }
  return found;
}

function requestFacts(request: Request, options: MappingOptions): RequestFacts {
  const href = request.url;
  const parts = urlParts(href);
  // The origin's view (docs/rules.md, "The origin's view"): slashes decoded, host folded, override read.
  const canonical = originPath(canonicalPath(parts.path), options.encodedSlashes ?? DEFAULT_SETTINGS.encodedSlashes);
  const overrideMode = options.methodOverride ?? DEFAULT_SETTINGS.methodOverride;
  const method = originMethod(request.method, overrideMode === "count" ? request.headers : EMPTY_HEADERS, overrideMode);
  const facts: RequestFacts = {
    request,
    href,
    canonical,
    path: canonical,
    host: originHost(parts.host),
    method,
    trustedProxyHops: options.trustedProxyHops ?? DEFAULT_SETTINGS.trustedProxyHops,
    trustedProxyHeader: options.trustedProxyHeader ?? DEFAULT_SETTINGS.trustedProxyHeader,
  };
  if (options.claims !== undefined) facts.claims = options.claims;
  if (options.jsonBody !== undefined) facts.jsonBody = options.jsonBody;
  return facts;
}

// Every descriptor of the route charges the route's cost; a missing or bad value throws RequestCostError.
function withCost(found: DomainDescriptors, route: CompiledRoute, facts: RequestFacts): DomainDescriptors {
  const { cost, costFromResponse } = route;
  const n = cost === undefined ? undefined : requestCost(cost, headersOf(facts), facts.request.body !== null, facts.jsonBody);
  // A budget charged from a JSON body or a usage report counts tokens (docs/llm.md): its headers say qu="tokens".
  const tokens = cost?.kind === "json_body" || (costFromResponse !== undefined && costFromResponse.kind !== "header");
  return {
    ...found,
    ...(n !== undefined ? { costs: found.descriptors.map(() => n) } : {}),
    ...(cost?.kind === "body_bytes" ? { quotaUnit: "content-bytes" as const } : tokens ? { quotaUnit: "tokens" as const } : {}),
    ...(costFromResponse !== undefined ? { costFromResponse } : {}),
  };
}

function sourceValue(source: EntrySource, facts: RequestFacts, domain: CompiledDomain): string | undefined {
  switch (source.kind) {
    case "value":
      return source.value;
    case "header":
      return headerOf(facts, source.name);
    case "query":
      return oneOf((facts.url ??= new URL(facts.href)).searchParams.getAll(source.name), domain, `query parameter "${source.name}"`);
    case "cookie":
      return oneOf((facts.cookies ??= parseCookies(headersOf(facts).get("cookie"))).get(source.name), domain, `cookie "${source.name}"`);
    case "remote_address":
      return clientKey((facts.clientIp ??= clientIp(headersOf(facts), facts.trustedProxyHops, facts.trustedProxyHeader)), domain.ipv6Prefix);
    case "path":
      return facts.path;
    case "method":
      return methodKey(facts.method);
    case "host":
      return facts.host;
    case "jwt_claim":
      return facts.claims?.(domain)?.get(source.name);
    case "json_body":
      return scalarAt(facts.jsonBody, source.path);
  }
}

const EMPTY_HEADERS = new Headers();

// Copies of a header arrive joined by ", " (Fetch): the joined text is the value, and the
// forwarded request carries it as one line (forward-path.ts), so the origin reads the same.
// An underscore spelling (`X_Api_Key`) is the header to a CGI-style origin: it counts as it,
// and two spellings with different values are refused (docs/rules.md, "The origin's view").
function headerOf(facts: RequestFacts, given: string): string | undefined {
  const headers = headersOf(facts);
  const name = hyphenName(given);
  const sent = headers.get(name);
  // A name without "-" is no header's underscore spelling: the map need not be built.
  // Stryker disable next-line ConditionalExpression,StringLiteral: the same answer, with or without the map
  const spelled = name.indexOf("-") < 0 ? undefined : (facts.underscored ??= underscoreHeaders(headers)).get(name);
  if (spelled === undefined) return sent === null ? undefined : headerValue(name, sent);
  const values = sent === null ? spelled : [sent, ...spelled];
  const first = headerValue(name, values[0]);
  for (const value of values) if (headerValue(name, value) !== first) throw new DuplicateValueError(`header "${name}" (in more than one spelling)`);
  return first;
}

// The value of a parameter or cookie sent `values.length` times: the same value repeated is that value.
function oneOf(values: readonly string[] | undefined, domain: CompiledDomain, what: string): string | undefined {
  if (values === undefined || values.length === 0) return undefined;
  const first = values[0];
  if (values.length === 1) return first;
  const last = values[values.length - 1];
  switch (domain.duplicateValues) {
    case "first":
      return first;
    case "last":
      return last;
    case "reject":
      for (const value of values) if (value !== first) throw new DuplicateValueError(what);
      return first;
  }
}

// Each read of `request.headers` is a call into the runtime: once per request.
function headersOf(facts: RequestFacts): Headers {
  return (facts.headers ??= facts.request.headers);
}

/**
 * Parse a Cookie header into name → every value sent under it, in order
 * (browsers send the most specific path first; origins differ on which they read).
 *
 * @example
 * parseCookies("a=1; session=xyz; a=2").get("a"); // ["1", "2"]
 * parseCookies("a=1, a=2").get("a");              // ["1", "2"]: two Cookie headers joined
 */
export function parseCookies(header: string | null): Map<string, string[]> {
  const cookies = new Map<string, string[]>();
  if (!header) return cookies;
  // RFC 6265 cookie values hold no "," either: copies of the Cookie header joined by ", " are separate cookies.
  for (const part of header.split(/[;,]/)) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    if (!name) continue;
    // As frameworks read it: quotes stripped, percent-escapes decoded (docs/rules.md, "The origin's view").
    const value = cookieValue(part.slice(eq + 1).trim());
    const values = cookies.get(name);
    if (values === undefined) cookies.set(name, [value]);
    else values.push(value);
  }
  return cookies;
}
