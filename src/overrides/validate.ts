/**
 * The body of `PUT /__ratelimit/overrides` (docs/admin-api.md,
 * "Overrides"), checked whole: every error is reported, with the JSON path
 * of what is wrong, in the rules endpoint's `{ path, message }` shape.
 */
import { asObject, Diagnostics, keyPath } from "../rules/reader.ts";
import type { RuleError } from "../rules/types.ts";
import { parsePattern, patternText } from "./descriptor.ts";
import { readOverrideLimit } from "./limit.ts";
import type { StoredOverride } from "./types.ts";

/** Longest `note`, in UTF-16 units: a reminder for operators, not a document. */
export const MAX_NOTE_CHARS = 500;
/** Longest `domain` name. */
export const MAX_DOMAIN_CHARS = 255;
/** Longest `descriptor`, in bytes of UTF-8: a real descriptor is a few short keys and values (docs/admin-api.md, "Overrides"). */
export const MAX_DESCRIPTOR_BYTES = 1024;
/** Longest `rate_limit`, as stored (JSON, bytes of UTF-8): every poll carries every override to every isolate. */
export const MAX_LIMIT_BYTES = 2048;

const encoder = new TextEncoder();

const KEYS = ["domain", "descriptor", "rate_limit", "expires_at", "note"];
// ISO-8601 date and time with seconds optional and a zone required, so one text means one instant everywhere.
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

export type OverrideCheck =
  | { readonly ok: true; readonly row: Omit<StoredOverride, "updated_at"> }
  | { readonly ok: false; readonly errors: readonly RuleError[] };

/**
 * Check a PUT body at the instant `now` (an `expires_at` not after it is refused).
 *
 * @example
 * checkOverride({ domain: "api", descriptor: "user=acme", rate_limit: { unlimited: true } }, Date.now());
 * // { ok: true, row: { domain: "api", descriptor: "user=acme", rate_limit: '{"unlimited":true}', expires_at: null, note: null } }
 */
export function checkOverride(body: unknown, now: number): OverrideCheck {
  const d = new Diagnostics();
  const obj = asObject(d, body, "$");
  if (obj === undefined) return { ok: false, errors: d.errors };
  for (const key of Object.keys(obj)) if (!KEYS.includes(key)) d.add(keyPath("$", key), `unknown key; an override has ${KEYS.join(", ")}`);
  const domain = requiredString(d, obj, "domain");
  if (domain !== undefined && domain.length > MAX_DOMAIN_CHARS) d.add("$.domain", `must be at most ${MAX_DOMAIN_CHARS} characters`);
  const descriptorText = requiredString(d, obj, "descriptor");
  const descriptorBytes = descriptorText === undefined ? 0 : encoder.encode(descriptorText).length;
  if (descriptorBytes > MAX_DESCRIPTOR_BYTES) d.add("$.descriptor", `must be at most ${MAX_DESCRIPTOR_BYTES} bytes of UTF-8, got ${descriptorBytes}`);
  const parsed = descriptorText === undefined || descriptorBytes > MAX_DESCRIPTOR_BYTES ? undefined : parsePattern(descriptorText);
  if (parsed !== undefined && !parsed.ok) d.add("$.descriptor", parsed.message);
  const descriptor = parsed?.ok ? patternText(parsed.pattern) : undefined;
  if (!Object.hasOwn(obj, "rate_limit")) d.add("$", 'missing required key "rate_limit" (a rate limit, or {"unlimited": true})');
  else {
    readOverrideLimit(d, obj.rate_limit, "$.rate_limit", descriptor ?? "override");
    const limitBytes = encoder.encode(JSON.stringify(obj.rate_limit) ?? "").length;
    if (limitBytes > MAX_LIMIT_BYTES) d.add("$.rate_limit", `must be at most ${MAX_LIMIT_BYTES} bytes of UTF-8 as JSON, got ${limitBytes}`);
  }
  const expiresAt = readExpiry(d, obj.expires_at, now);
  const note = optionalString(d, obj, "note");
  if (note !== undefined && note.length > MAX_NOTE_CHARS) d.add("$.note", `must be at most ${MAX_NOTE_CHARS} characters, got ${note.length}`);
  if (d.errors.length > 0 || domain === undefined || descriptor === undefined) return { ok: false, errors: d.errors };
  return { ok: true, row: { domain, descriptor, rate_limit: JSON.stringify(obj.rate_limit), expires_at: expiresAt ?? null, note: note ?? null } };
}

function requiredString(d: Diagnostics, obj: Record<string, unknown>, key: string): string | undefined {
  if (!Object.hasOwn(obj, key)) {
    d.add("$", `missing required key "${key}"`);
    return undefined;
  }
  const value = obj[key];
  if (typeof value !== "string" || value === "") {
    d.add(keyPath("$", key), "must be a non-empty string");
    return undefined;
  }
  return value;
}

function optionalString(d: Diagnostics, obj: Record<string, unknown>, key: string): string | undefined {
  const value = obj[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") {
    d.add(keyPath("$", key), "must be a string");
    return undefined;
  }
  return value;
}

function readExpiry(d: Diagnostics, value: unknown, now: number): string | undefined {
  if (value === undefined || value === null) return undefined;
  const at = typeof value === "string" && ISO_TIME.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(at)) {
    d.add("$.expires_at", `must be an ISO-8601 time with a zone, like "2026-12-31T00:00:00Z", got ${JSON.stringify(value)}`);
    return undefined;
  }
  if (at <= now) {
    d.add("$.expires_at", `is not in the future (${new Date(at).toISOString()} ≤ now, ${new Date(now).toISOString()})`);
    return undefined;
  }
  return new Date(at).toISOString();
}
