/**
 * A route's `cost` and `cost_from_response` (docs/response-limits.md,
 * docs/llm.md): how many hits each of its descriptors charges, from a
 * literal, a request header, the body's size or a number in its JSON body,
 * and what the origin's answer reports afterwards (a header, a usage report,
 * a number in its JSON).
 */
import { readBool, readEnum, readInt, readString } from "./fields.ts";
import { readJsonPath } from "./json-path.ts";
import { BOUNDS, USAGE_PRESETS, USAGE_TOKENS } from "./keys.ts";
import { asObject, checkKeys, type Diagnostics, type JsonObject, jsonType, keyPath } from "./reader.ts";
import type { ResponseCost, RouteCost } from "./types.ts";

const COST_SOURCES = ["header", "body_bytes", "json_body"] as const;
const RESPONSE_SOURCES = ["header", "usage", "json"] as const;

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * Read `cost` of the route `obj` at `path` (undefined: absent or invalid).
 *
 * @example
 * readRouteCost(d, { cost: { header: "X-Cost" } }, "$.routes[0]"); // { kind: "header", name: "x-cost" }
 * readRouteCost(d, { cost: { header: "x-n", allow_zero: true } }, "$.routes[0]"); // { kind: "header", name: "x-n", allowZero: true }
 */
export function readRouteCost(d: Diagnostics, obj: JsonObject, path: string): RouteCost | undefined {
  if (!Object.hasOwn(obj, "cost")) return undefined;
  const at = keyPath(path, "cost");
  const value = obj.cost;
  if (typeof value === "number") {
    if (Number.isInteger(value) && value >= 0 && value <= BOUNDS.maxCount) return Object.freeze({ kind: "literal", value });
    d.add(at, `must be a whole number from 0 to ${BOUNDS.maxCount}, got ${value}`);
    return undefined;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    d.add(at, `expected a whole number, {"header": "…"}, {"body_bytes": true} or {"json_body": "…"}, got ${jsonType(value)}`);
    return undefined;
  }
  const spec = asObject(d, value, at);
  if (spec === undefined) return undefined;
  checkKeys(d, spec, at, "cost");
  const sources = COST_SOURCES.filter((source) => Object.hasOwn(spec, source));
  if (sources.length !== 1) {
    d.add(at, 'set exactly one of "header", "body_bytes" and "json_body"');
    return undefined;
  }
  // `default` and `max` belong to a number read from the body; elsewhere they would be silently ignored.
  if (sources[0] !== "json_body")
    for (const key of ["default", "max"]) if (Object.hasOwn(spec, key)) d.add(keyPath(at, key), `only applies to a "json_body" cost`);
  // A client that declares 0 would be let through for nothing: only a route that says so may be free.
  const zero = readBool(d, spec, "allow_zero", at) === true ? { allowZero: true } : {};
  if (sources[0] === "json_body") return readJsonBodyCost(d, spec, at, zero);
  if (sources[0] === "header") {
    const name = readHeaderName(d, spec, at);
    return name === undefined ? undefined : Object.freeze({ kind: "header", name, ...zero });
  }
  const body = readBool(d, spec, "body_bytes", at);
  if (body === false) d.add(keyPath(at, "body_bytes"), 'must be true (omit "cost" to charge one hit per request)');
  return body === true ? Object.freeze({ kind: "body_bytes", ...zero }) : undefined;
}

// `{"json_body": "max_tokens", "default": 1024, "max": 200000}`: a reservation read from the request (docs/llm.md).
function readJsonBodyCost(d: Diagnostics, spec: JsonObject, at: string, zero: { allowZero?: boolean }): RouteCost | undefined {
  const path = readJsonPath(d, spec, "json_body", at);
  if (!Object.hasOwn(spec, "default")) d.add(at, 'missing required key "default" (the cost of a request whose body does not give one)');
  const fallback = readInt(d, spec, "default", at, 0, BOUNDS.maxCount);
  const max = readInt(d, spec, "max", at, 0, BOUNDS.maxCount) ?? BOUNDS.maxCount;
  if (fallback !== undefined && fallback > max) d.add(keyPath(at, "default"), `must be at most "max" (${max}), got ${fallback}`);
  if (path === undefined || fallback === undefined || fallback > max) return undefined;
  return Object.freeze({ kind: "json_body", path, fallback, max, ...zero });
}

/**
 * Read `cost_from_response` of the route `obj` at `path`: a response
 * header (lower-case), a usage preset with the tokens it charges, or a
 * dotted path of the response's JSON.
 *
 * @example
 * readCostFromResponse(d, { cost_from_response: { header: "X-Tokens-Used" } }, "$.routes[0]"); // { kind: "header", name: "x-tokens-used" }
 * readCostFromResponse(d, { cost_from_response: { usage: "openai" } }, "$.routes[0]"); // { kind: "usage", preset: "openai", tokens: "total" }
 */
export function readCostFromResponse(d: Diagnostics, obj: JsonObject, path: string): ResponseCost | undefined {
  if (!Object.hasOwn(obj, "cost_from_response")) return undefined;
  const at = keyPath(path, "cost_from_response");
  const spec = asObject(d, obj.cost_from_response, at);
  if (spec === undefined) return undefined;
  checkKeys(d, spec, at, "costFromResponse");
  const sources = RESPONSE_SOURCES.filter((source) => Object.hasOwn(spec, source));
  if (sources.length !== 1) {
    d.add(at, 'set exactly one of "header", "usage" and "json"');
    return undefined;
  }
  if (sources[0] !== "usage" && Object.hasOwn(spec, "tokens"))
    d.add(keyPath(at, "tokens"), 'only applies beside "usage" (a "json" path names its number itself)');
  if (sources[0] === "header") {
    const name = readHeaderName(d, spec, at);
    return name === undefined ? undefined : Object.freeze({ kind: "header", name });
  }
  if (sources[0] === "json") {
    const json = readJsonPath(d, spec, "json", at);
    return json === undefined ? undefined : Object.freeze({ kind: "json", path: json });
  }
  const preset = readEnum(d, spec, "usage", at, USAGE_PRESETS, "usage report");
  const tokens = Object.hasOwn(spec, "tokens") ? readEnum(d, spec, "tokens", at, USAGE_TOKENS, "tokens") : "total";
  return preset === undefined || tokens === undefined ? undefined : Object.freeze({ kind: "usage", preset, tokens });
}

function readHeaderName(d: Diagnostics, spec: JsonObject, at: string): string | undefined {
  const name = readString(d, spec, "header", at);
  if (name === undefined) return undefined;
  if (!TOKEN.test(name)) {
    d.add(keyPath(at, "header"), `${JSON.stringify(name)} is not a valid header name`);
    return undefined;
  }
  return name.toLowerCase();
}
