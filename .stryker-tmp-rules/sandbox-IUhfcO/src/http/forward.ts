/**
 * Forwarding an allowed request to the origin at ORIGIN_URL, streamed both
 * ways, with hop-by-hop headers dropped.
 */
// @ts-nocheck

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
  // that); fields named in Connection and the non-standard Proxy-Connection
  // are ours to drop. Most requests have neither, and then the copy and its
  // deletes, a visible share of a forward's cost, are skipped.
  const headers = incoming.has("connection") || incoming.has("proxy-connection") ? forwardHeaders(incoming) : incoming;
  const method = request.method;
  const hasBody = method !== "GET" && method !== "HEAD";
  return fetch(upstreamHref(origin, request.url), {
    method,
    headers,
    body: hasBody ? request.body : undefined,
    redirect: "manual",
  });
}

/**
 * The request headers an origin gets: hop-by-hop fields (and those the
 * `Connection` header names) and `Host` removed.
 *
 * @example
 * forwardHeaders(new Headers({ connection: "x-trace", "x-trace": "1", accept: "text/html" })); // only accept
 */
export function forwardHeaders(incoming: Headers): Headers {
  const headers = new Headers(incoming);
  const named = (headers.get("connection") ?? "")
    .split(",")
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
  for (const name of [...HOP_BY_HOP, ...named, "host"]) headers.delete(name);
  return headers;
}
