/**
 * Readers for single members of a JSON object. Each returns `undefined` when
 * the member is absent or invalid, recording an error in the invalid case.
 */
// @ts-nocheck

import { type Diagnostics, type JsonObject, jsonType, keyPath } from "./reader.ts";
import { closest } from "./suggest.ts";

/**
 * Record `missing required key` unless `obj` has `key`.
 *
 * @example
 * requireKey(d, {}, "domain", "$"); // false; error at $: missing required key "domain"
 */
export function requireKey(d: Diagnostics, obj: JsonObject, key: string, path: string): boolean {
  if (Object.hasOwn(obj, key)) return true;
  d.add(path, `missing required key "${key}"`);
  return false;
}

/**
 * A string member. Empty strings are rejected with `emptyMessage` unless it is `null`.
 *
 * @example
 * readString(d, { key: "" }, "key", "$.descriptors[0]"); // undefined; error "must be a non-empty string"
 */
export function readString(
  d: Diagnostics,
  obj: JsonObject,
  key: string,
  path: string,
  emptyMessage: string | null = "must be a non-empty string",
): string | undefined {
  if (!Object.hasOwn(obj, key)) return undefined;
  const value = obj[key];
  if (typeof value !== "string") {
    d.add(keyPath(path, key), `expected a string, got ${jsonType(value)}`);
    return undefined;
  }
  if (value === "" && emptyMessage !== null) {
    d.add(keyPath(path, key), emptyMessage);
    return undefined;
  }
  return value;
}

/**
 * A boolean member.
 *
 * @example
 * readBool(d, { shadow_mode: "yes" }, "shadow_mode", "$"); // undefined; error "expected a boolean, got string"
 */
export function readBool(d: Diagnostics, obj: JsonObject, key: string, path: string): boolean | undefined {
  if (!Object.hasOwn(obj, key)) return undefined;
  const value = obj[key];
  if (typeof value === "boolean") return value;
  d.add(keyPath(path, key), `expected a boolean, got ${jsonType(value)}`);
  return undefined;
}

/**
 * An integer member within `[min, max]`.
 *
 * @example
 * readInt(d, { burst: 0 }, "burst", "$.rate_limit", 1, 10); // undefined; error "must be at least 1, got 0"
 */
export function readInt(d: Diagnostics, obj: JsonObject, key: string, path: string, min: number, max: number): number | undefined {
  if (!Object.hasOwn(obj, key)) return undefined;
  const value = obj[key];
  const at = keyPath(path, key);
  if (typeof value !== "number") {
    d.add(at, `expected an integer, got ${jsonType(value)}`);
    return undefined;
  }
  if (!Number.isInteger(value)) {
    d.add(at, `expected an integer, got ${value}`);
    return undefined;
  }
  if (value < min) {
    d.add(at, `must be at least ${min}, got ${value}`);
    return undefined;
  }
  if (value > max) {
    d.add(at, `must be at most ${max}, got ${value}`);
    return undefined;
  }
  return value;
}

/**
 * A string member that must be one of `values`; `what` names it in messages.
 *
 * @example
 * readEnum(d, { unit: "minutes" }, "unit", "$", ["minute"], "unit");
 * // undefined; error 'unknown unit "minutes" (did you mean "minute"?)'
 */
export function readEnum<T extends string>(d: Diagnostics, obj: JsonObject, key: string, path: string, values: readonly T[], what: string): T | undefined {
  const value = readString(d, obj, key, path, null);
  if (value === undefined) return undefined;
  if ((values as readonly string[]).includes(value)) return value as T;
  const suggestion = closest(value, values);
  const hint = suggestion !== undefined ? `did you mean "${suggestion}"?` : `expected one of: ${values.join(", ")}`;
  d.add(keyPath(path, key), `unknown ${what} ${JSON.stringify(value)} (${hint})`);
  return undefined;
}
