/**
 * The request the origin is sent: with `paths.forward: "canonical"`
 * (docs/rules.md, "Canonical paths") its canonical path, so the origin
 * serves exactly the path that was limited; and every header a rule keys on
 * as one line (docs/rules.md, "The origin's view"), so an origin that reads
 * the first of two lines reads the joined value the limit counted.
 */
import { canonicalPath, foldPathCase } from "../http/canonical-path.ts";
import { urlParts } from "../http/url-parts.ts";
import { matchRoute } from "../rules/index.ts";
import { hyphenName } from "./origin-view.ts";
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
  return withLimitedHeadersJoined(rules, withCanonicalPath(rules, request));
}

const limitedNames = new WeakMap<CompiledRules, readonly string[]>();

/**
 * The header names the routes of `rules` key on (lower case, `_` as `-`), found once per rules.
 *
 * @example
 * limitedHeaders(rules); // ["x-api-key"]
 */
export function limitedHeaders(rules: CompiledRules): readonly string[] {
  let names = limitedNames.get(rules);
  if (names === undefined) {
    const found = new Set<string>();
    for (const domain of rules.domains.values())
      for (const route of domain.routes)
        for (const spec of route.descriptors) for (const entry of spec) if (entry.source.kind === "header") found.add(hyphenName(entry.source.name));
    limitedNames.set(rules, (names = [...found]));
  }
  return names;
}

// A header sent as two lines reaches the origin as two; Go and Java read the first. Set as one
// line holding the joined text (what Headers.get gave the limit), every origin reads that.
function withLimitedHeadersJoined(rules: CompiledRules, request: Request): Request {
  const names = limitedHeaders(rules);
  if (names.length === 0) return request;
  const sent = request.headers;
  let headers: Headers | undefined;
  for (const name of names) {
    const value = sent.get(name);
    if (value !== null && value.indexOf(",") >= 0) (headers ??= new Headers(sent)).set(name, value);
  }
  return headers === undefined ? request : new Request(request, { headers });
}

function withCanonicalPath(rules: CompiledRules, request: Request): Request {
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
