/**
 * Forwarding an allowed request to the origin at ORIGIN_URL, streamed both
 * ways, with hop-by-hop headers and a client's copies of floodgate's own
 * headers dropped.
 */
import { DECISION_HEADER, DELAY_HEADER } from "./headers.ts";
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
 * the client rather than followed.
 *
 * @example
 * const response = await forwardToOrigin(request, new URL(env.ORIGIN_URL));
 */
export async function forwardToOrigin(request: Request, origin: URL): Promise<Response> {
  const incoming = request.headers;
  // The runtime's fetch already drops the standard hop-by-hop fields and
  // sets Host from the URL (test/gateway/forwarding.test.ts holds it to
  // that); fields named in Connection, the non-standard Proxy-Connection and
  // a client's copies of floodgate's own headers are ours to drop. Most
  // requests have none, and then the copy and its deletes, a visible share
  // of a forward's cost, are skipped.
  const headers = needsCleaning(incoming) ? forwardHeaders(incoming) : incoming;
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
 * A header a client may not send an origin: one of floodgate's own, or a decision header.
 *
 * @example
 * isFloodgateHeader("X-Floodgate-Queued-Id"); // true
 * isFloodgateHeader("X-RateLimit-Decision"); // true
 * isFloodgateHeader("X-Trace"); // false
 */
export function isFloodgateHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return lower.startsWith(FLOODGATE_HEADER_PREFIX) || DECISION_HEADERS.has(lower);
}

function needsCleaning(headers: Headers): boolean {
  for (const name of headers.keys()) {
    if (name === "connection" || name === "proxy-connection" || isFloodgateHeader(name)) return true;
  }
  return false;
}

/**
 * The request headers an origin gets: hop-by-hop fields (and those the
 * `Connection` header names, except the client-address ones), a client's
 * copies of floodgate's own headers (`X-Floodgate-*`, `X-RateLimit-Decision`,
 * `X-RateLimit-Delay-Ms`) and `Host` removed.
 *
 * @example
 * forwardHeaders(new Headers({ connection: "x-trace", "x-trace": "1", accept: "text/html" })); // only accept
 */
export function forwardHeaders(incoming: Headers): Headers {
  const headers = new Headers(incoming);
  const named = (headers.get("connection") ?? "")
    .split(",")
    .map((h) => h.trim().toLowerCase())
    .filter((h) => h !== "" && !PROTECTED.has(h) && !isFloodgateHeader(h));
  const own = [...headers.keys()].filter(isFloodgateHeader);
  for (const name of [...HOP_BY_HOP, ...named, ...own, "host"]) headers.delete(name);
  return headers;
}
