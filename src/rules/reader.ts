/**
 * Typed, error-collecting access to untrusted JSON. Every reader records a
 * problem and returns `undefined` instead of throwing, so one pass over the
 * file reports every error rather than the first.
 */
import { BOUNDS, ENVOY_ONLY_KEYS, RULE_KEYS, type RuleObjectKind } from "./keys.ts";
import { closest } from "./suggest.ts";
import type { RuleError } from "./types.ts";

export type JsonObject = Record<string, unknown>;

/** Collects errors up to `BOUNDS.maxErrors`, then notes the truncation once. */
export class Diagnostics {
  readonly errors: RuleError[] = [];
  private truncated = false;

  /**
   * @example
   * const d = new Diagnostics();
   * d.add("$.domain", "must be a non-empty string");
   */
  add(path: string, message: string): void {
    if (this.errors.length < BOUNDS.maxErrors) {
      this.errors.push({ path, message });
    } else if (!this.truncated) {
      this.truncated = true;
      this.errors.push({ path: "$", message: `too many errors; only the first ${BOUNDS.maxErrors} are shown` });
    }
  }
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * JSONPath of a member; keys that are not identifiers use bracket notation.
 *
 * @example
 * keyPath("$.descriptors[0]", "rate_limit"); // "$.descriptors[0].rate_limit"
 * keyPath("$", "a b");                       // '$["a b"]'
 */
export function keyPath(path: string, key: string): string {
  return IDENTIFIER.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

/**
 * JSONPath of an array element.
 *
 * @example
 * indexPath("$.descriptors", 2); // "$.descriptors[2]"
 */
export function indexPath(path: string, index: number): string {
  return `${path}[${index}]`;
}

/**
 * The JSON type name used in messages (`array` and `null` are told apart from `object`).
 *
 * @example
 * jsonType([]);   // "array"
 * jsonType(null); // "null"
 */
export function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

/**
 * Narrow to a plain JSON object, or record `expected an object`.
 *
 * @example
 * asObject(d, "x", "$.descriptors[0]"); // undefined; error "expected an object, got string"
 */
export function asObject(d: Diagnostics, value: unknown, path: string): JsonObject | undefined {
  if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as JsonObject;
  d.add(path, `expected an object, got ${jsonType(value)}`);
  return undefined;
}

/**
 * Narrow to an array, or record `expected an array`.
 *
 * @example
 * asArray(d, {}, "$.routes"); // undefined; error "expected an array, got object"
 */
export function asArray(d: Diagnostics, value: unknown, path: string): readonly unknown[] | undefined {
  if (Array.isArray(value)) return value;
  d.add(path, `expected an array, got ${jsonType(value)}`);
  return undefined;
}

// Where a key lives, for "it belongs inside ..." hints on keys put one level off.
const KIND_HOME: Record<RuleObjectKind, string> = {
  rateLimit: 'inside "rate_limit"',
  descriptor: "on a descriptor",
  document: "at the top level of a domain document",
  route: "on a route",
  match: 'inside a route\'s "match"',
  routeEntry: "on a route descriptor entry",
  precount: 'inside "precount"',
  penalty: 'inside "penalty"',
  replaces: 'inside a "replaces" entry',
  countWhen: 'inside "count_when"',
  cost: 'inside a route\'s "cost"',
  costFromResponse: 'inside a route\'s "cost_from_response"',
  paths: 'inside a domain\'s "paths"',
  jwt: 'inside a domain\'s "jwt"',
  jwks: 'inside "jwt.jwks"',
  jwk: 'on a key of "jwt.jwks.keys"',
};

/**
 * Record every key of `obj` that `kind` does not allow, suggesting the
 * likely intended key.
 *
 * @example
 * checkKeys(d, { rate_limt: {} }, "$.descriptors[0]", "descriptor");
 * // error at $.descriptors[0].rate_limt: unknown key "rate_limt" (did you mean "rate_limit"?)
 */
export function checkKeys(d: Diagnostics, obj: JsonObject, path: string, kind: RuleObjectKind): void {
  const allowed: readonly string[] = RULE_KEYS[kind];
  for (const key of Object.keys(obj)) {
    if (allowed.includes(key)) continue;
    d.add(keyPath(path, key), unknownKeyMessage(key, kind));
  }
}

function unknownKeyMessage(key: string, kind: RuleObjectKind): string {
  if (ENVOY_ONLY_KEYS.includes(key)) return `unknown key "${key}" (an Envoy option floodgate does not support)`;
  const allowed: readonly string[] = RULE_KEYS[kind];
  const suggestion = closest(key, allowed);
  if (suggestion !== undefined) return `unknown key "${key}" (did you mean "${suggestion}"?)`;
  for (const other of Object.keys(KIND_HOME) as RuleObjectKind[]) {
    if (other !== kind && (RULE_KEYS[other] as readonly string[]).includes(key)) {
      return `unknown key "${key}" here (it belongs ${KIND_HOME[other]})`;
    }
  }
  return `unknown key "${key}" (expected one of: ${allowed.join(", ")})`;
}
