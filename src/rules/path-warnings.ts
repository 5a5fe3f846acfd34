/**
 * `rules:check` warnings about paths written in a form no request is
 * matched in (docs/rules.md, "Canonical paths"). Such rules still work:
 * route patterns are put in canonical form when compiled. The warning says
 * how each is really read, so the file can say what it means.
 */
import { canonicalPath, decodedSlashes } from "../http/canonical-path.ts";
import { domainPath } from "./paths.ts";
import { indexPath, type JsonObject, keyPath } from "./reader.ts";
import type { PathOptions, RuleError } from "./types.ts";
import { documentsWarnings, isJsonObject } from "./warning-walk.ts";

const UNRESERVED_ESCAPE = /%(2[DE]|3\d|4[1-9A-F]|5[\dA]|5F|6[1-9A-F]|7[\dA]|7E)/i;
const DOT_SEGMENT = /(^|\/)(\.|%2e){1,2}(;[^/]*)?(\/|$)/i;

/**
 * One warning per route `match.path` that its canonical form changes, and
 * per descriptor `value` of key `path` (in a domain whose routes use the
 * built-in `path` key) that is not a canonical path. Meant for rules that
 * already compile.
 *
 * @example
 * pathWarnings({ domain: "api", routes: [{ match: { path: "/Login/" }, descriptors: [] }] });
 * // [{ path: "$.routes[0].match.path", message: 'matched as "/login" (letter case folded, trailing slash dropped): ...' }]
 */
export function pathWarnings(rules: unknown): RuleError[] {
  return documentsWarnings(rules, documentWarnings);
}

function documentWarnings(doc: JsonObject, at: string, warnings: RuleError[]): void {
  const paths = isJsonObject(doc.paths) ? doc.paths : {};
  const options: PathOptions = { caseSensitive: paths.case_sensitive === true, forward: "as_sent" };
  let builtinPath = false;
  const routes = Array.isArray(doc.routes) ? doc.routes : [];
  routes.forEach((route, i) => {
    if (!isJsonObject(route)) return;
    const routeAt = indexPath(keyPath(at, "routes"), i);
    const pattern = isJsonObject(route.match) ? route.match.path : undefined;
    if (typeof pattern === "string") {
      const canonical = domainPath(options, pattern);
      if (canonical !== pattern) warnings.push({ path: keyPath(keyPath(routeAt, "match"), "path"), message: patternMessage(pattern, canonical, options) });
    }
    const descriptors = Array.isArray(route.descriptors) ? route.descriptors : [];
    builtinPath ||= descriptors.some((d) => Array.isArray(d) && d.some((e) => isJsonObject(e) && e.key === "path" && Object.keys(e).length === 1));
  });
  if (builtinPath) treeWarnings(doc.descriptors, keyPath(at, "descriptors"), options, warnings);
}

function treeWarnings(level: unknown, at: string, options: PathOptions, warnings: RuleError[]): void {
  if (!Array.isArray(level)) return;
  level.forEach((node, i) => {
    if (!isJsonObject(node)) return;
    const nodeAt = indexPath(at, i);
    if (node.key === "path" && typeof node.value === "string") {
      const canonical = domainPath(options, node.value);
      if (canonical !== node.value) {
        warnings.push({
          path: keyPath(nodeAt, "value"),
          message: `the built-in "path" key reads canonical paths, so it never gives ${JSON.stringify(node.value)}; write ${JSON.stringify(canonical)}`,
        });
      }
    }
    treeWarnings(node.descriptors, keyPath(nodeAt, "descriptors"), options, warnings);
  });
}

function patternMessage(pattern: string, canonical: string, options: PathOptions): string {
  const why: string[] = [];
  if (!pattern.startsWith("/")) why.push('a leading "/" added');
  const slashes = /%(2F|5C)/i.test(pattern);
  if (slashes) why.push('encoded slashes read as "/"');
  if (!options.caseSensitive && decodedSlashes(canonicalPath(pattern)) !== canonical) why.push("letter case folded");
  if (pattern.includes(";"))
    why.push(pattern.includes("*") && !canonical.includes("*") ? '";" parameters dropped, and the "*" with them' : '";" parameters dropped');
  if (DOT_SEGMENT.test(pattern)) why.push("dot segments resolved");
  if (/\/\/./.test(pattern)) why.push("repeated slashes merged");
  if (pattern.length > 1 && pattern.endsWith("/")) why.push("trailing slash dropped");
  if (UNRESERVED_ESCAPE.test(pattern)) why.push("escapes of unreserved characters decoded");
  const escapes = (pattern.match(/%[\da-f]{2}/gi) ?? []).filter((e) => !/^%(2F|5C)$/i.test(e));
  if (escapes.some((e) => /[a-f]/.test(e) && !UNRESERVED_ESCAPE.test(e))) why.push("escapes upper-cased");
  if (why.length === 0) why.push("characters percent-encoded");
  return `matched as ${JSON.stringify(canonical)} (${why.join(", ")}): requests are compared in canonical form; write ${JSON.stringify(canonical)} to say so`;
}
