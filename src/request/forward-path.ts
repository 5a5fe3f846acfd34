/**
 * `paths.forward: "canonical"` (docs/rules.md, "Canonical paths"): the
 * request a domain that asks for it sends on with its canonical path, so
 * the origin serves exactly the path that was limited.
 */
import { canonicalPath, foldPathCase } from "../http/canonical-path.ts";
import { urlParts } from "../http/url-parts.ts";
import { matchRoute } from "../rules/index.ts";
import type { CompiledRules } from "../rules/types.ts";

/**
 * `request` itself, or a copy whose path is canonical (letter case as sent:
 * folding is for matching only) when a domain with `paths.forward:
 * "canonical"` has a route matching it and its path is not canonical
 * already. Query, method, headers and body go along unchanged.
 *
 * @example
 * // rules with { "paths": { "forward": "canonical" }, "routes": [{ "match": { "path": "/*" }, ... }] }
 * forwardedRequest(rules, new Request("http://gw//Login/?a=1")).url; // "http://gw/Login?a=1"
 */
export function forwardedRequest(rules: CompiledRules, request: Request): Request {
  let parts: { path: string; host: string } | undefined;
  let canonical = "";
  for (const domain of rules.domains.values()) {
    if (domain.paths.forward !== "canonical") continue;
    if (parts === undefined) {
      parts = urlParts(request.url);
      canonical = canonicalPath(parts.path);
      if (canonical === parts.path) return request;
    }
    const path = domain.paths.caseSensitive ? canonical : foldPathCase(canonical);
    if (matchRoute(domain.routes, { method: request.method, path, host: parts.host }) === undefined) continue;
    const url = new URL(request.url);
    url.pathname = canonical;
    return new Request(url, request);
  }
  return request;
}
