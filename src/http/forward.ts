/**
 * Forwarding an allowed request to the origin at ORIGIN_URL, streamed both
 * ways, with hop-by-hop headers dropped, and every header a client could
 * forge about itself, the host or floodgate (docs/deploy.md, "What the
 * origin may trust"), in any spelling.
 */
import { DECISION_HEADER, DELAY_HEADER } from "./headers.ts";
import { METHOD_OVERRIDE_HEADERS } from "./origin-settings.ts";
import { pathStart } from "./url-parts.ts";

// RFC 9110 section 7.6.1: connection-specific fields are not forwarded.
const HOP_BY_HOP = ["connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding"];

/**
 * The upstream URL: always ORIGIN_URL's scheme, host and port, with the
 * request's path (after any ORIGIN_URL path prefix) and query. The request's
 * own Host or a `//host/...` path can never pick another host.
 *
 * @example
 * upstreamUrl(new URL("https://api.example.com/v1"), new URL("http://gw/users?id=1")).href;
 * // "https://api.example.com/v1/users?id=1"
 */
export function upstreamUrl(origin: URL, incoming: URL): URL {
  const target = new URL(origin.href);
  const prefix = target.pathname.replace(/\/+$/, "");
  target.pathname = prefix + incoming.pathname;
  target.search = incoming.search;
  return target;
}

const bases = new WeakMap<URL, string>();

/**
 * `upstreamUrl(origin, new URL(url)).href` by string operations, for the
 * hot path: the runtime hands over `request.url` already normalized, and
 * the origin's scheme, host, port and path prefix come first, so the
 * request's path can never pick another host.
 *
 * @example
 * upstreamHref(new URL("https://api.example.com/v1/"), "http://gw/users?id=1"); // "https://api.example.com/v1/users?id=1"
 */
export function upstreamHref(origin: URL, url: string): string {
  let base = bases.get(origin);
  if (base === undefined) bases.set(origin, (base = origin.origin + origin.pathname.replace(/\/+$/, "")));
  const path = pathStart(url);
  if (path < 0) return `${base}/`;
  let end = url.indexOf("#", path);
  if (end < 0) end = url.length;
  // An empty query ("/x?") has no search, as URL.search reads it.
  if (url.charCodeAt(end - 1) === 63 /* ? */ && url.indexOf("?", path) === end - 1) end -= 1;
  return base + url.slice(path, end);
}

/**
 * Forward the request to the origin, body streamed, redirects passed back to
 * the client rather than followed. With `decision`, the origin gets it as
 * `X-RateLimit-Decision` (a client's own copy is always dropped first).
 *
 * @example
 * const response = await forwardToOrigin(request, new URL(env.ORIGIN_URL));
 * await forwardToOrigin(request, origin, options, "soft"); // the origin reads X-RateLimit-Decision: soft
 */
export async function forwardToOrigin(request: Request, origin: URL, options: ForwardOptions = {}, decision?: string): Promise<Response> {
  const incoming = request.headers;
  // The runtime's fetch already drops the standard hop-by-hop fields and
  // sets Host from the URL (test/gateway/forwarding.test.ts holds it to
  // that); fields named in Connection, the non-standard Proxy-Connection and
  // a client's copies of floodgate's own headers are ours to drop. Most
  // requests have none, and then the copy and its deletes, a visible share
  // of a forward's cost, are skipped.
  const headers = decision !== undefined || needsCleaning(incoming, options) ? forwardHeaders(incoming, options) : incoming;
  if (decision !== undefined) headers.set(DECISION_HEADER, decision);
  const method = request.method;
  const hasBody = method !== "GET" && method !== "HEAD";
  return fetch(upstreamHref(origin, request.url), {
    method,
    headers,
    body: hasBody ? request.body : undefined,
    redirect: "manual",
  });
}

/** Prefix of the headers floodgate itself sends an origin (docs/on-limit.md): a client's own are never passed on. */
export const FLOODGATE_HEADER_PREFIX = "x-floodgate-";

// floodgate's decision headers: an origin may read them as floodgate's word, so a client's copies go.
const DECISION_HEADERS = new Set([DECISION_HEADER.toLowerCase(), DELAY_HEADER.toLowerCase()]);

// Headers that say who the client is: `Connection` may not remove them, or a
// client could hide its address from an origin that reads one of them.
const PROTECTED = new Set(["cf-connecting-ip", "cf-connecting-ipv6", "true-client-ip", "x-forwarded-for", "x-real-ip", "forwarded"]);

/**
 * Headers a client writes about itself or the host that origins and their
 * frameworks trust for routing, tenancy, scheme or the client's address
 * (docs/deploy.md, "What the origin may trust"). Cloudflare writes none of
 * these for a Worker's subrequest, so whatever arrives is the client's.
 */
export const FORGEABLE_HEADERS: ReadonlySet<string> = new Set([
  "forwarded",
  "x-forwarded-host",
  "x-forwarded-proto",
  "x-forwarded-port",
  "x-forwarded-prefix",
  "x-forwarded-server",
  "x-forwarded-scheme",
  "x-original-host",
  "x-host",
  "x-original-url",
  "x-rewrite-url",
  "true-client-ip",
  "x-real-ip",
  "x-client-ip",
  "x-cluster-client-ip",
]);

// Set by Cloudflare's edge under their own names: only an underscore spelling is the client's.
const EDGE_WRITTEN = new Set(["cf-connecting-ip", "cf-connecting-ipv6", "x-forwarded-for", "cf-ipcountry", "cf-ray", "cf-visitor"]);

/** How `forwardHeaders` reads a request: what the deployment's settings leave to the origin. */
export interface ForwardOptions {
  /** `METHOD_OVERRIDE`: only `count` passes the method-override headers on; absent or `strip` removes them. */
  readonly methodOverride?: "strip" | "count";
  /**
   * With TRUSTED_PROXY_HOPS > 0, the header your own proxies write the
   * client address into: it is theirs, not the client's, and is kept.
   */
  readonly trustedProxyHeader?: string;
}

const optionsOf = new WeakMap<object, ForwardOptions>();

/**
 * The forwarding options of a deployment's settings, made once per settings object.
 *
 * @example
 * await forwardToOrigin(request, origin, forwardOptions(isolate.settings));
 */
export function forwardOptions(settings: {
  readonly methodOverride: "strip" | "count";
  readonly trustedProxyHops: number;
  readonly trustedProxyHeader: string;
}): ForwardOptions {
  let options = optionsOf.get(settings);
  if (options === undefined) {
    options = {
      methodOverride: settings.methodOverride,
      ...(settings.trustedProxyHops > 0 ? { trustedProxyHeader: settings.trustedProxyHeader } : {}),
    };
    optionsOf.set(settings, options);
  }
  return options;
}

const OVERRIDE_HEADERS: ReadonlySet<string> = new Set(METHOD_OVERRIDE_HEADERS);

/**
 * A header a client may not send an origin: one of floodgate's own, or a
 * decision header, in any spelling (`_` for `-`, as CGI-style origins read it).
 *
 * @example
 * isFloodgateHeader("X-Floodgate-Queued-Id"); // true
 * isFloodgateHeader("X_Floodgate_Queued_Id"); // true
 * isFloodgateHeader("X-RateLimit-Decision"); // true
 * isFloodgateHeader("X-Trace"); // false
 */
export function isFloodgateHeader(name: string): boolean {
  const lower = hyphenated(name);
  return lower.startsWith(FLOODGATE_HEADER_PREFIX) || DECISION_HEADERS.has(lower);
}

function hyphenated(name: string): string {
  const lower = name.toLowerCase();
  return lower.indexOf("_") < 0 ? lower : lower.replaceAll("_", "-");
}

/**
 * Whether the origin never gets header `name` from a client (`lower`: its
 * name in lower case, as `Headers` gives it): floodgate's own, a forgeable
 * one, an underscore spelling of one Cloudflare writes, and under
 * `methodOverride: "strip"` a method override.
 *
 * @example
 * isDroppedHeader("x-forwarded-host"); // true
 * isDroppedHeader("x_real_ip"); // true
 * isDroppedHeader("accept"); // false
 */
export function isDroppedHeader(lower: string, options: ForwardOptions = {}): boolean {
  // `Headers` hands names over in lower case already: only `_` needs reading.
  const name = lower.indexOf("_") < 0 ? lower : lower.replaceAll("_", "-");
  if (name.startsWith(FLOODGATE_HEADER_PREFIX) || DECISION_HEADERS.has(name)) return true;
  if (FORGEABLE_HEADERS.has(name)) return name !== options.trustedProxyHeader || lower !== name;
  if (name !== lower && EDGE_WRITTEN.has(name)) return true;
  // Anything but `count` strips them: the safe reading when no setting is given.
  return options.methodOverride !== "count" && OVERRIDE_HEADERS.has(name);
}

function needsCleaning(headers: Headers, options: ForwardOptions): boolean {
  for (const name of headers.keys()) {
    if (name === "connection" || name === "proxy-connection" || isDroppedHeader(name, options)) return true;
  }
  return false;
}

/**
 * The request headers an origin gets: hop-by-hop fields (and those the
 * `Connection` header names, except the client-address ones), `Host`, and
 * every header `isDroppedHeader` names: a client's copies of floodgate's
 * own (`X-Floodgate-*`, `X-RateLimit-Decision`, `X-RateLimit-Delay-Ms`), the
 * forgeable client and host headers (`X-Forwarded-Host`, `Forwarded`,
 * `True-Client-IP`, `X-Real-IP`, …), their underscore spellings, and the
 * method-override headers unless they are counted.
 *
 * @example
 * forwardHeaders(new Headers({ connection: "x-trace", "x-trace": "1", accept: "text/html" })); // only accept
 * forwardHeaders(new Headers({ "x-forwarded-host": "evil.example", accept: "text/html" })); // only accept
 */
export function forwardHeaders(incoming: Headers, options: ForwardOptions = {}): Headers {
  const headers = new Headers(incoming);
  const named = (headers.get("connection") ?? "")
    .split(",")
    .map((h) => h.trim().toLowerCase())
    .filter((h) => h !== "" && !PROTECTED.has(h) && !isFloodgateHeader(h));
  const dropped = [...headers.keys()].filter((name) => isDroppedHeader(name, options));
  for (const name of [...HOP_BY_HOP, ...named, ...dropped, "host"]) headers.delete(name);
  return headers;
}
