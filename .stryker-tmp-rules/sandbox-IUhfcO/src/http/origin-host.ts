/**
 * With ORIGIN_URL unset, whether a request reached the Worker on a zone
 * route (a real origin sits behind the hostname: pass the request on to it)
 * or somewhere no origin can be behind (`wrangler dev` on this machine, or
 * workers.dev: answer with the built-in echo). Decided from the request's
 * hostname alone, so a user sets nothing for it (docs/operations.md, "Configuration": ORIGIN_URL).
 */
// @ts-nocheck


// Names that can never be a Cloudflare zone: RFC 6761 special-use and
// RFC 6762 / ICANN private-use top-level names.
const PRIVATE_SUFFIXES = [".localhost", ".test", ".example", ".invalid", ".local", ".internal", ".home.arpa"];

/**
 * Whether `hostname` (as `URL.hostname` gives it) can be a zone route with
 * an origin of its own. Not for: an IP address (Cloudflare never routes a
 * bare IP to a Worker; `wrangler dev` listens on one), `localhost`, a name
 * without a dot, a special-use name (`*.test`, `*.localhost`, …), and
 * `*.workers.dev` (the Worker is the only thing there).
 *
 * @example
 * hasRouteOrigin("api.example.com"); // true: fetch(request) reaches the zone's origin
 * hasRouteOrigin("127.0.0.1");       // false: wrangler dev, so the echo
 * hasRouteOrigin("floodgate.me.workers.dev"); // false
 */
export function hasRouteOrigin(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, "");
  if (name.startsWith("[") || /^[\d.]+$/.test(name)) return false;
  if (!name.includes(".") || name === "workers.dev" || name.endsWith(".workers.dev")) return false;
  return !PRIVATE_SUFFIXES.some((suffix) => name.endsWith(suffix) || name === suffix.slice(1));
}
