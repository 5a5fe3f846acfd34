/**
 * The path and host of a request URL read by string operations: each URL
 * property is a call into the runtime, and building a URL per request was a
 * measurable share of the hot path's cost.
 */
// @ts-nocheck


/**
 * Where the path of an absolute URL starts: its first "/" after the "//"
 * (-1 when it has none).
 *
 * @example
 * pathStart("http://gw:8787/v1/items?id=1"); // 14
 */
export function pathStart(url: string): number {
  return url.indexOf("/", url.indexOf("//") + 2);
}

/** What routes match on, as `URL.pathname` and `URL.hostname` give them. */
export interface UrlParts {
  readonly path: string;
  readonly host: string;
}

/**
 * `{ path: url.pathname, host: url.hostname }` of a serialized http(s) URL.
 * `request.url` always is one: the runtime has parsed and normalized it, so
 * the host is lower case, dot segments are resolved and the path starts
 * right after the authority. A URL of another scheme, or whose authority
 * does not look serialized, is parsed with URL instead.
 *
 * @example
 * urlParts("https://user@API.example.com:8443/v1/items?id=1#top"); // { path: "/v1/items", host: "api.example.com" }
 * urlParts("http://[::1]:8787/x"); // { path: "/x", host: "[::1]" }
 */
export function urlParts(url: string): UrlParts {
  const start = url.startsWith("http://") ? 7 : url.startsWith("https://") ? 8 : -1;
  const slash = start < 0 ? -1 : pathStart(url);
  // A serialized special URL always has a path, and the authority never holds "?" or "#".
  if (slash < 0 || hasAny(url, start, slash, "?#\\")) return viaUrl(url);
  const at = url.lastIndexOf("@", slash);
  const hostStart = at >= start ? at + 1 : start;
  let hostEnd = slash;
  if (url.charCodeAt(hostStart) === 91 /* [ */) hostEnd = url.indexOf("]", hostStart) + 1;
  else {
    const colon = url.indexOf(":", hostStart);
    if (colon >= 0 && colon < slash) hostEnd = colon;
  }
  if (hostEnd <= hostStart || hostEnd > slash) return viaUrl(url);
  const host = url.slice(hostStart, hostEnd);
  if (host !== host.toLowerCase()) return viaUrl(url);
  let pathEnd = url.length;
  const query = url.indexOf("?", slash);
  if (query >= 0) pathEnd = query;
  const hash = url.indexOf("#", slash);
  if (hash >= 0 && hash < pathEnd) pathEnd = hash;
  return { path: url.slice(slash, pathEnd), host };
}

function hasAny(text: string, from: number, to: number, chars: string): boolean {
  for (let i = from; i < to; i++) if (chars.includes(text[i])) return true;
  return false;
}

function viaUrl(url: string): UrlParts {
  const parsed = new URL(url);
  return { path: parsed.pathname, host: parsed.hostname };
}
