/**
 * Envoy's RateLimitRequest in proto3 JSON (the `/json` body and the RPC
 * argument), checked the way protojson reads it: field names in JSON
 * (lowerCamelCase) or proto (snake_case) form, unknown fields rejected,
 * `null` meaning "not set", 32/64-bit integers as numbers or decimal strings.
 * Every problem is reported with its JSON path.
 */
// @ts-nocheck

import { keyPath, indexPath, jsonType } from "../rules/reader.ts";
import type { DescriptorEntry, Unit } from "../rules/types.ts";

/** Most descriptors one request may carry. */
export const MAX_DESCRIPTORS = 1_000;
const UINT32_MAX = 4_294_967_295;

/** Envoy's RateLimitUnit enum, by name and number. */
const UNITS: Readonly<Record<string, Unit>> = {
  SECOND: "second",
  MINUTE: "minute",
  HOUR: "hour",
  DAY: "day",
  MONTH: "month",
  YEAR: "year",
  WEEK: "week",
};
const UNIT_NUMBERS = ["UNKNOWN", "SECOND", "MINUTE", "HOUR", "DAY", "MONTH", "YEAR", "WEEK"];

/** One request descriptor. */
export interface EnvoyDescriptor {
  readonly entries: readonly DescriptorEntry[];
  /** Per-descriptor `hits_addend` when set (0 allowed: read without counting). */
  readonly hitsAddend?: number;
  /** Envoy's per-descriptor `limit` override. */
  readonly limit?: { readonly requestsPerUnit: number; readonly unit: Unit };
}

/** A valid RateLimitRequest. */
export interface EnvoyRequest {
  readonly domain: string;
  readonly descriptors: readonly EnvoyDescriptor[];
  /** The request's `hits_addend`, 0 already turned into 1 as Envoy's service does. */
  readonly hitsAddend: number;
}

export type ParsedRequest = { readonly ok: true; readonly request: EnvoyRequest } | { readonly ok: false; readonly path: string; readonly message: string };

class Invalid extends Error {
  readonly path: string;
  constructor(path: string, message: string) {
    super(message);
    this.path = path;
  }
}

/**
 * Check a parsed JSON body against RateLimitRequest.
 *
 * @example
 * parseEnvoyRequest({ domain: "api", descriptors: [{ entries: [{ key: "k", value: "v" }] }] });
 * // { ok: true, request: { domain: "api", descriptors: [...], hitsAddend: 1 } }
 * parseEnvoyRequest({ domain: "api", descriptors: [] });
 * // { ok: false, path: "$.descriptors", message: "rate limit descriptor list must not be empty" }
 */
export function parseEnvoyRequest(body: unknown): ParsedRequest {
  try {
    const obj = object(body, "$");
    const fields = members(obj, "$", { domain: "domain", descriptors: "descriptors", hits_addend: "hitsAddend" });
    const domain = str(fields.domain, keyPath("$", "domain"));
    if (domain === "") throw new Invalid(keyPath("$", "domain"), "rate limit domain must not be empty");
    const list = array(fields.descriptors, keyPath("$", "descriptors"));
    if (list.length === 0) throw new Invalid(keyPath("$", "descriptors"), "rate limit descriptor list must not be empty");
    if (list.length > MAX_DESCRIPTORS) {
      throw new Invalid(keyPath("$", "descriptors"), `at most ${MAX_DESCRIPTORS} descriptors per request, got ${list.length}`);
    }
    const descriptors = list.map((d, i) => descriptor(d, indexPath(keyPath("$", "descriptors"), i)));
    const hits = integer(fields.hits_addend, keyPath("$", "hits_addend"), UINT32_MAX) ?? 0;
    return { ok: true, request: { domain, descriptors, hitsAddend: Math.max(1, hits) } };
  } catch (error) {
    if (error instanceof Invalid) return { ok: false, path: error.path, message: error.message };
    throw error;
  }
}

function descriptor(value: unknown, path: string): EnvoyDescriptor {
  const fields = members(object(value, path), path, { entries: "entries", limit: "limit", hits_addend: "hitsAddend" });
  const entries = array(fields.entries, keyPath(path, "entries")).map((e, i) => {
    const at = indexPath(keyPath(path, "entries"), i);
    const entry = members(object(e, at), at, { key: "key", value: "value" });
    return { key: str(entry.key, keyPath(at, "key")), value: str(entry.value, keyPath(at, "value")) };
  });
  const hitsAddend = wrapped(fields.hits_addend, keyPath(path, "hits_addend"));
  const limit = fields.limit === undefined || fields.limit === null ? undefined : override(fields.limit, keyPath(path, "limit"));
  return { entries, ...(hitsAddend !== undefined ? { hitsAddend } : {}), ...(limit ? { limit } : {}) };
}

function override(value: unknown, path: string): { requestsPerUnit: number; unit: Unit } {
  const fields = members(object(value, path), path, { requests_per_unit: "requestsPerUnit", unit: "unit" });
  const requestsPerUnit = integer(fields.requests_per_unit, keyPath(path, "requests_per_unit"), UINT32_MAX) ?? 0;
  const at = keyPath(path, "unit");
  const raw = fields.unit;
  const name = typeof raw === "number" && Number.isInteger(raw) ? UNIT_NUMBERS[raw] : raw;
  if (typeof name !== "string" || !Object.hasOwn(UNITS, name)) {
    throw new Invalid(at, `expected one of ${Object.keys(UNITS).join(", ")}, got ${JSON.stringify(raw ?? null)}`);
  }
  return { requestsPerUnit, unit: UNITS[name] };
}

// Reads the known members of an object by proto or JSON name; both at once, or any other member, is an error.
function members(obj: Record<string, unknown>, path: string, names: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const byName = new Map<string, string>();
  for (const [proto, json] of Object.entries(names)) byName.set(proto, proto).set(json, proto);
  for (const [key, value] of Object.entries(obj)) {
    const proto = byName.get(key);
    if (proto === undefined) {
      throw new Invalid(keyPath(path, key), `unknown field "${key}" (expected one of: ${Object.values(names).join(", ")})`);
    }
    if (Object.hasOwn(out, proto)) throw new Invalid(keyPath(path, key), `field "${proto}" is given twice (as "${proto}" and "${names[proto]}")`);
    out[proto] = value;
  }
  return out;
}

function object(value: unknown, path: string): Record<string, unknown> {
  if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  throw new Invalid(path, `expected an object, got ${jsonType(value)}`);
}

function array(value: unknown, path: string): readonly unknown[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value;
  throw new Invalid(path, `expected an array, got ${jsonType(value)}`);
}

function str(value: unknown, path: string): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return value;
  throw new Invalid(path, `expected a string, got ${jsonType(value)}`);
}

// A google.protobuf.UInt64Value: null or absent means not set. Capped at 2^53 − 1, beyond which JSON numbers are not exact.
function wrapped(value: unknown, path: string): number | undefined {
  return integer(value, path, Number.MAX_SAFE_INTEGER);
}

function integer(value: unknown, path: string, max: number): number | undefined {
  if (value === undefined || value === null) return undefined;
  const n = typeof value === "string" && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof n !== "number" || !Number.isInteger(n) || n < 0) {
    const shown = typeof value === "number" ? String(value) : typeof value === "string" ? JSON.stringify(value) : jsonType(value);
    throw new Invalid(path, `expected a non-negative integer, got ${shown}`);
  }
  if (n > max) throw new Invalid(path, `must be at most ${max}, got ${value}`);
  return n;
}
