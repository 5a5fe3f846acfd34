/**
 * A route's `cost` and `cost_from_response` (docs/response-limits.md): how
 * many hits each of its descriptors charges, from a literal, a request
 * header or the body's size, and the response header charged afterwards.
 */
// @ts-nocheck

import { readBool, readString } from "./fields.ts";
import { BOUNDS } from "./keys.ts";
import { asObject, checkKeys, type Diagnostics, type JsonObject, jsonType, keyPath } from "./reader.ts";
import type { RouteCost } from "./types.ts";

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * Read `cost` of the route `obj` at `path` (undefined: absent or invalid).
 *
 * @example
 * readRouteCost(d, { cost: { header: "X-Cost" } }, "$.routes[0]"); // { kind: "header", name: "x-cost" }
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
    d.add(at, `expected a whole number, {"header": "…"} or {"body_bytes": true}, got ${jsonType(value)}`);
    return undefined;
  }
  const spec = asObject(d, value, at);
  if (spec === undefined) return undefined;
  checkKeys(d, spec, at, "cost");
  const hasHeader = Object.hasOwn(spec, "header");
  const hasBody = Object.hasOwn(spec, "body_bytes");
  if (hasHeader === hasBody) {
    d.add(at, 'set exactly one of "header" and "body_bytes"');
    return undefined;
  }
  if (hasHeader) {
    const name = readHeaderName(d, spec, at);
    return name === undefined ? undefined : Object.freeze({ kind: "header", name });
  }
  const body = readBool(d, spec, "body_bytes", at);
  if (body === false) d.add(keyPath(at, "body_bytes"), 'must be true (omit "cost" to charge one hit per request)');
  return body === true ? Object.freeze({ kind: "body_bytes" }) : undefined;
}

/**
 * Read `cost_from_response` of the route `obj` at `path`: the lower-case
 * name of the response header to charge.
 *
 * @example
 * readCostFromResponse(d, { cost_from_response: { header: "X-Tokens-Used" } }, "$.routes[0]"); // "x-tokens-used"
 */
export function readCostFromResponse(d: Diagnostics, obj: JsonObject, path: string): string | undefined {
  if (!Object.hasOwn(obj, "cost_from_response")) return undefined;
  const at = keyPath(path, "cost_from_response");
  const spec = asObject(d, obj.cost_from_response, at);
  if (spec === undefined) return undefined;
  checkKeys(d, spec, at, "costFromResponse");
  if (!Object.hasOwn(spec, "header")) {
    d.add(at, 'missing required key "header"');
    return undefined;
  }
  return readHeaderName(d, spec, at);
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
