/**
 * A domain's `paths` options and the route path patterns they govern
 * (docs/rules.md, "Canonical paths"): requests are matched in canonical
 * form, so patterns are put in that form once, here, at compile time.
 */
import { canonicalPath, decodedSlashes, foldPathCase } from "../http/canonical-path.ts";
import { readBool, readEnum } from "./fields.ts";
import { compileGlob, type GlobMatcher } from "./match/glob.ts";
import { PATH_FORWARDS } from "./keys.ts";
import { asObject, checkKeys, type Diagnostics, type JsonObject, keyPath } from "./reader.ts";
import type { PathOptions } from "./types.ts";

/** `paths` when a domain leaves it out: case folded, forwarded as sent. */
export const DEFAULT_PATH_OPTIONS: PathOptions = Object.freeze({ caseSensitive: false, forward: "as_sent" });

/**
 * Read a domain document's `paths` object (absent: the defaults).
 *
 * @example
 * readPathOptions(d, { paths: { case_sensitive: true } }, "$"); // { caseSensitive: true, forward: "as_sent" }
 * readPathOptions(d, { paths: { forward: "raw" } }, "$");       // defaults; error at $.paths.forward
 */
export function readPathOptions(d: Diagnostics, doc: JsonObject, path: string): PathOptions {
  if (!Object.hasOwn(doc, "paths")) return DEFAULT_PATH_OPTIONS;
  const at = keyPath(path, "paths");
  const obj = asObject(d, doc.paths, at);
  if (obj === undefined) return DEFAULT_PATH_OPTIONS;
  checkKeys(d, obj, at, "paths");
  const caseSensitive = readBool(d, obj, "case_sensitive", at) ?? DEFAULT_PATH_OPTIONS.caseSensitive;
  const forward = readEnum(d, obj, "forward", at, PATH_FORWARDS, "paths.forward") ?? DEFAULT_PATH_OPTIONS.forward;
  if (caseSensitive === DEFAULT_PATH_OPTIONS.caseSensitive && forward === DEFAULT_PATH_OPTIONS.forward) return DEFAULT_PATH_OPTIONS;
  return Object.freeze({ caseSensitive, forward });
}

/**
 * The form a domain matches a canonical path in: case folded unless the
 * domain keeps it. Also what a route pattern is compiled to (a `*` is kept
 * as it is, so globs survive).
 *
 * @example
 * domainPath(DEFAULT_PATH_OPTIONS, "/Login/");  // "/login"
 * domainPath({ caseSensitive: true, forward: "as_sent" }, "//Login"); // "/Login"
 * domainPath(DEFAULT_PATH_OPTIONS, "/api%2Flogin"); // "/api/login"
 */
export function domainPath(options: PathOptions, path: string): string {
  // Encoded slashes read as "/", as requests are under ENCODED_SLASHES=decode (docs/rules.md, "The origin's view").
  const canonical = decodedSlashes(canonicalPath(path));
  return options.caseSensitive ? canonical : foldPathCase(canonical);
}

/**
 * A `match.path` matcher over paths in the domain's form (`domainPath`).
 * The pattern is put in that form first, so `/Login/` matches `/login`. A
 * glob ending in `*` also matches a path whose spelling with a trailing
 * slash it matches (`/api/*` matches `/api`, as it matches `/api/`): the
 * trailing slash is no part of a canonical path.
 *
 * @example
 * const m = compilePathPattern("/API/*", DEFAULT_PATH_OPTIONS);
 * m("/api");         // true
 * m("/api/v1/users"); // true
 * m("/apiary");      // false
 */
export function compilePathPattern(pattern: string, options: PathOptions): GlobMatcher {
  const canonical = domainPath(options, pattern);
  const glob = compileGlob(canonical);
  if (!canonical.endsWith("*")) return glob;
  return (path) => glob(path) || (path.length > 1 && glob(`${path}/`));
}
