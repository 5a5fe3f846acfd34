/**
 * Envoy rate limit service configs (parsed YAML) into floodgate rules: the
 * same keys, so mostly a copy, with Envoy's loose spots made explicit —
 * scalar keys and values become strings, units are lower-cased, a missing
 * `requests_per_unit` is Envoy's 0, empty values mean "no value", and every
 * limit pins `fixed_window`, the algorithm Envoy's service uses, so migrated
 * rules answer as before. Options that only shape Envoy's metrics or dynamic
 * metadata are dropped with a warning; options that change decisions and
 * floodgate lacks stay, for the compiler to reject.
 */
import { indexPath, keyPath } from "../reader.ts";
import type { RuleError } from "../types.ts";

export interface Converted {
  /** The rules document (valid or not: compile it to know). */
  readonly document: unknown;
  readonly errors: readonly RuleError[];
  readonly warnings: readonly RuleError[];
}

type Obj = Record<string, unknown>;

interface Notes {
  readonly errors: RuleError[];
  readonly warnings: RuleError[];
}

/**
 * Convert one Envoy config (a YAML document as JS values; maps may be
 * `Map`s, which is how non-string keys are caught, as Envoy catches them).
 *
 * @example
 * fromEnvoy({ domain: "mongo_cps", descriptors: [{ key: "database", value: "users",
 *   rate_limit: { unit: "SECOND", requests_per_unit: 500 } }] }).document;
 * // { domain: "mongo_cps", descriptors: [{ key: "database", value: "users",
 * //   rate_limit: { unit: "second", requests_per_unit: 500, algorithm: "fixed_window" } }] }
 */
export function fromEnvoy(yaml: unknown): Converted {
  const notes: Notes = { errors: [], warnings: [] };
  const root = plain(yaml, "$", notes);
  if (!isObj(root)) return { document: root, ...notes };
  const document: Obj = { ...root };
  if (isScalar(document.domain)) document.domain = String(document.domain);
  if (document.domain === null) delete document.domain;
  if (document.descriptors === null) delete document.descriptors;
  if (Array.isArray(document.descriptors)) {
    document.descriptors = document.descriptors.map((d, i) => descriptor(d, indexPath(keyPath("$", "descriptors"), i), notes));
  }
  return { document, ...notes };
}

function descriptor(value: unknown, path: string, notes: Notes): unknown {
  if (!isObj(value)) return value;
  const out: Obj = { ...value };
  if (isScalar(out.key)) out.key = String(out.key);
  if (out.key === null) out.key = "";
  if (isScalar(out.value)) out.value = String(out.value);
  if (out.value === null || out.value === "") delete out.value;
  for (const key of ["rate_limit", "descriptors", "shadow_mode", "detailed_metric"]) if (out[key] === null) delete out[key];
  for (const key of ["quota_mode", "share_threshold", "value_to_metric"]) if (out[key] === false || out[key] === null) delete out[key];
  if (Object.hasOwn(out, "value_to_metric")) {
    delete out.value_to_metric;
    notes.warnings.push({
      path: keyPath(path, "value_to_metric"),
      message: "dropped: it only adds request values to Envoy's metric names (use detailed_metric for that in floodgate)",
    });
  }
  if (Object.hasOwn(out, "metadata")) {
    delete out.metadata;
    notes.warnings.push({ path: keyPath(path, "metadata"), message: "dropped: floodgate does not return dynamic metadata" });
  }
  if (out.rate_limit !== undefined) out.rate_limit = rateLimit(out.rate_limit, keyPath(path, "rate_limit"), notes);
  if (Array.isArray(out.descriptors)) {
    out.descriptors = out.descriptors.map((d, i) => descriptor(d, indexPath(keyPath(path, "descriptors"), i), notes));
  }
  return out;
}

function rateLimit(value: unknown, path: string, notes: Notes): unknown {
  if (!isObj(value)) return value;
  const out: Obj = { ...value };
  if (isScalar(out.name)) out.name = String(out.name);
  if (out.name === "" || out.name === null) delete out.name;
  if (out.replaces === null) delete out.replaces;
  if (Array.isArray(out.replaces)) {
    // An empty `- name:` reads as null; as "" the compiler reports it as an empty name, which it is.
    out.replaces = out.replaces.map((entry) => {
      if (!isObj(entry)) return entry;
      if (entry.name === null) return { ...entry, name: "" };
      return isScalar(entry.name) ? { ...entry, name: String(entry.name) } : entry;
    });
  }
  if (typeof out.unit === "string") out.unit = out.unit.toLowerCase();
  if (out.unlimited === false || out.unlimited === null) delete out.unlimited;
  if (out.unlimited === true) {
    if (Object.hasOwn(out, "requests_per_unit") && !Object.hasOwn(out, "unit")) {
      delete out.requests_per_unit;
      notes.warnings.push({ path: keyPath(path, "requests_per_unit"), message: "dropped: Envoy ignores requests_per_unit on an unlimited rate limit" });
    }
    return out;
  }
  if (!Object.hasOwn(out, "requests_per_unit") || out.requests_per_unit === null) {
    out.requests_per_unit = 0;
    notes.warnings.push({ path: keyPath(path, "requests_per_unit"), message: "missing: Envoy reads it as 0, so every request is over this limit" });
  }
  if (!Object.hasOwn(out, "algorithm")) out.algorithm = "fixed_window";
  return out;
}

// YAML maps as Maps into plain objects; a key that is not a string is an error, as in Envoy.
function plain(value: unknown, path: string, notes: Notes): unknown {
  if (value instanceof Map) {
    const out: Obj = {};
    for (const [key, item] of value) {
      if (typeof key !== "string") {
        notes.errors.push({ path, message: `key ${JSON.stringify(String(key))} is not a string (a ${key === null ? "null" : typeof key}); quote it` });
        continue;
      }
      out[key] = plain(item, keyPath(path, key), notes);
    }
    return out;
  }
  if (Array.isArray(value)) return value.map((item, i) => plain(item, indexPath(path, i), notes));
  return value;
}

function isObj(value: unknown): value is Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Map);
}

function isScalar(value: unknown): value is number | boolean | bigint {
  return typeof value === "number" || typeof value === "boolean" || typeof value === "bigint";
}
