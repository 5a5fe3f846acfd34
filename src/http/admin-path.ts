/**
 * Whether a request's path is floodgate's own endpoint space, read as the
 * origin would read the path (docs/rules.md, "The origin's view"): no
 * spelling of `/__ratelimit` (`//__ratelimit`, `/__RATELIMIT`,
 * `/__ratelimit;x`, `/%5F_ratelimit`, `/x/../__ratelimit`) is ever
 * forwarded to the origin.
 */
import { canonicalPath, foldPathCase } from "./canonical-path.ts";
import { pathStart } from "./url-parts.ts";

/** The prefix of floodgate's endpoints, as the router spells it. */
export const ADMIN_PREFIX = "/__ratelimit";

/**
 * How a request URL's path stands to `/__ratelimit`: `exact` (spelled as the
 * router matches it), `spelled` (another spelling of a path under it), or
 * `none`. A path with neither `_` nor `%` cannot be a spelling of it, so
 * nearly every request costs two searches.
 *
 * @example
 * adminPath("http://gw/__ratelimit/json");  // "exact"
 * adminPath("http://gw//__RATELIMIT/json"); // "spelled"
 * adminPath("http://gw/api/login");         // "none"
 */
export function adminPath(url: string): "exact" | "spelled" | "none" {
  const start = pathStart(url);
  if (start < 0) return "none";
  if (url.startsWith(ADMIN_PREFIX, start) && isBoundary(url.charCodeAt(start + ADMIN_PREFIX.length))) return "exact";
  let end = url.indexOf("?", start);
  if (end < 0) end = url.length;
  const hash = url.indexOf("#", start);
  if (hash >= 0 && hash < end) end = hash;
  if (!within(url, "_", start, end) && !within(url, "%", start, end)) return "none";
  const raw = url.slice(start, end);
  // Escapes of `/` and `\\` read as slashes, as the origin's default reading (ENCODED_SLASHES=decode) does.
  const path = foldPathCase(canonicalPath(canonicalPath(raw).replace(/%(2F|5C)/g, "/")));
  return path === ADMIN_PREFIX || path.startsWith(`${ADMIN_PREFIX}/`) ? "spelled" : "none";
}

function within(url: string, char: string, start: number, end: number): boolean {
  const at = url.indexOf(char, start);
  return at >= 0 && at < end;
}

// "/__ratelimit" ends the path, or a segment ("/", "?", "#"): "/__ratelimitx" is an ordinary path.
function isBoundary(c: number): boolean {
  return Number.isNaN(c) || c === 47 || c === 63 || c === 35;
}
