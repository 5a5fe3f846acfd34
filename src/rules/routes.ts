/**
 * `routes` (*ext*): request matchers and the descriptors they produce.
 */
import { readString, requireKey } from "./fields.ts";
import { readJsonPath } from "./json-path.ts";
import { compileGlob } from "./match/glob.ts";
import { compilePathPattern, DEFAULT_PATH_OPTIONS } from "./paths.ts";
import { BUILTIN_KEYS, VALUE_SOURCES } from "./keys.ts";
import { asArray, asObject, checkKeys, type Diagnostics, indexPath, type JsonObject, jsonType, keyPath } from "./reader.ts";
import { readCostFromResponse, readRouteCost } from "./route-cost.ts";
import type { CompiledRoute, EntrySource, JsonPath, PathOptions, RouteCost, RouteEntry } from "./types.ts";

// RFC 9110 `token`: the syntax of both method and header field names.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * Read a `routes` array at `path`; invalid routes are left out, with errors
 * recorded. `match.path` patterns are compiled in the form `paths` gives
 * request paths (docs/rules.md, "Canonical paths").
 *
 * @example
 * const [route] = readRoutes(d, [{ match: { methods: ["post"], path: "/login" },
 *   descriptors: [[{ key: "remote_address" }]] }], "$.routes");
 * route.methods?.has("POST"); // true
 */
export function readRoutes(d: Diagnostics, value: unknown, path: string, paths: PathOptions = DEFAULT_PATH_OPTIONS): CompiledRoute[] {
  const list = asArray(d, value, path);
  if (list === undefined) return [];
  const routes: CompiledRoute[] = [];
  list.forEach((item, i) => {
    const route = readRoute(d, item, indexPath(path, i), paths);
    if (route !== undefined) routes.push(route);
  });
  return routes;
}

function readRoute(d: Diagnostics, item: unknown, path: string, paths: PathOptions): CompiledRoute | undefined {
  const obj = asObject(d, item, path);
  if (obj === undefined) return undefined;
  const before = d.errors.length;
  checkKeys(d, obj, path, "route");
  requireKey(d, obj, "match", path);
  requireKey(d, obj, "descriptors", path);
  const match = Object.hasOwn(obj, "match") ? readMatch(d, obj.match, keyPath(path, "match"), paths) : {};
  const descriptors: (readonly RouteEntry[])[] = [];
  const at = keyPath(path, "descriptors");
  const list = Object.hasOwn(obj, "descriptors") ? asArray(d, obj.descriptors, at) : undefined;
  list?.forEach((descriptor, i) => {
    const entries = readDescriptor(d, descriptor, indexPath(at, i));
    if (entries !== undefined) descriptors.push(entries);
  });
  const cost = readRouteCost(d, obj, path);
  const costFromResponse = readCostFromResponse(d, obj, path);
  if (d.errors.length > before) return undefined;
  const jsonPaths = jsonPathsOf(descriptors, cost);
  return Object.freeze({
    ...match,
    descriptors: Object.freeze(descriptors),
    ...(cost !== undefined ? { cost } : {}),
    ...(costFromResponse !== undefined ? { costFromResponse } : {}),
    ...(jsonPaths.length > 0 ? { jsonPaths: Object.freeze(jsonPaths) } : {}),
  });
}

// What the route reads of a JSON body, so a request is read only on a route that needs it (docs/llm.md).
function jsonPathsOf(descriptors: readonly (readonly RouteEntry[])[], cost: RouteCost | undefined): JsonPath[] {
  const paths: JsonPath[] = [];
  for (const entries of descriptors) for (const { source } of entries) if (source.kind === "json_body") paths.push(source.path);
  if (cost?.kind === "json_body") paths.push(cost.path);
  return paths;
}

type MatchParts = Pick<CompiledRoute, "methods" | "path" | "pathPattern" | "host">;

function readMatch(d: Diagnostics, value: unknown, path: string, paths: PathOptions): MatchParts {
  const obj = asObject(d, value, path);
  if (obj === undefined) return {};
  checkKeys(d, obj, path, "match");
  const parts: { methods?: ReadonlySet<string>; path?: (p: string) => boolean; pathPattern?: string; host?: (h: string) => boolean } = {};
  if (Object.hasOwn(obj, "methods")) parts.methods = readMethods(d, obj.methods, keyPath(path, "methods"));
  const pathPattern = readString(d, obj, "path", path);
  if (pathPattern !== undefined) {
    parts.path = compilePathPattern(pathPattern, paths);
    parts.pathPattern = pathPattern;
  }
  const hostPattern = readString(d, obj, "host", path);
  if (hostPattern !== undefined) parts.host = compileGlob(hostPattern, true);
  return parts;
}

function readMethods(d: Diagnostics, value: unknown, path: string): ReadonlySet<string> | undefined {
  const list = asArray(d, value, path);
  if (list === undefined) return undefined;
  if (list.length === 0) d.add(path, 'must not be empty (omit "methods" to match every method)');
  const methods = new Set<string>();
  list.forEach((method, i) => {
    if (typeof method !== "string") d.add(indexPath(path, i), `expected a string, got ${jsonType(method)}`);
    else if (!TOKEN.test(method)) d.add(indexPath(path, i), `${JSON.stringify(method)} is not a valid HTTP method`);
    else methods.add(method.toUpperCase());
  });
  return methods;
}

function readDescriptor(d: Diagnostics, value: unknown, path: string): readonly RouteEntry[] | undefined {
  if (!Array.isArray(value)) {
    d.add(path, `expected a descriptor (an array of entries), got ${jsonType(value)}`);
    return undefined;
  }
  if (value.length === 0) d.add(path, "a descriptor needs at least one entry");
  const entries: RouteEntry[] = [];
  value.forEach((item, i) => {
    const entry = readEntry(d, item, indexPath(path, i));
    if (entry !== undefined) entries.push(entry);
  });
  return Object.freeze(entries);
}

function readEntry(d: Diagnostics, item: unknown, path: string): RouteEntry | undefined {
  const obj = asObject(d, item, path);
  if (obj === undefined) return undefined;
  checkKeys(d, obj, path, "routeEntry");
  requireKey(d, obj, "key", path);
  const key = readString(d, obj, "key", path);
  const sources = VALUE_SOURCES.filter((source) => Object.hasOwn(obj, source));
  if (sources.length > 1) {
    d.add(path, `entry has ${sources.length} value sources (${sources.map((s) => `"${s}"`).join(", ")}); set exactly one`);
    return undefined;
  }
  if (key === undefined) return undefined;
  const source = sources.length === 1 ? readSource(d, obj, path, sources[0]) : builtinSource(d, key, path);
  return source === undefined ? undefined : Object.freeze({ key, source });
}

function builtinSource(d: Diagnostics, key: string, path: string): EntrySource | undefined {
  const builtin = BUILTIN_KEYS.find((k) => k === key);
  if (builtin !== undefined) return Object.freeze({ kind: builtin });
  const sources = VALUE_SOURCES.map((s) => `"${s}"`).join(", ");
  d.add(path, `entry "${key}" has no value source; set one of ${sources} (only the built-in keys ${BUILTIN_KEYS.join(", ")} need none)`);
  return undefined;
}

function readSource(d: Diagnostics, obj: JsonObject, path: string, kind: (typeof VALUE_SOURCES)[number]): EntrySource | undefined {
  const text = readString(d, obj, kind, path);
  if (text === undefined) return undefined;
  if (kind === "value") return Object.freeze({ kind, value: text });
  if (kind === "json_body") {
    const jsonPath = readJsonPath(d, obj, kind, path);
    return jsonPath === undefined ? undefined : Object.freeze({ kind, path: jsonPath });
  }
  if (kind === "header") {
    if (!TOKEN.test(text)) {
      d.add(keyPath(path, kind), `${JSON.stringify(text)} is not a valid header name`);
      return undefined;
    }
    // Headers are case-insensitive; the lower-case form is what `Headers` hands back.
    return Object.freeze({ kind, name: text.toLowerCase() });
  }
  return Object.freeze({ kind, name: text });
}
