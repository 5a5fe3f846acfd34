/**
 * An override's descriptor in the counters endpoint's `k=v,k2=v2` form
 * (docs/admin-api.md, "Overrides"): `,` and `=` separate, keys and values
 * are percent-decoded after splitting (`%2C` `%3D` `%25` for a literal
 * `,` `=` `%`), and a raw `*` ending the last value makes that value a
 * prefix (`%2A` is a literal `*`). The canonical text, which names the
 * override, is the pattern re-encoded with only those escapes.
 */
import { isLongValue, MAX_VALUE_BYTES } from "../rules/index.ts";
import { BOUNDS } from "../rules/keys.ts";
import type { DescriptorEntry } from "../rules/types.ts";
import type { DescriptorPattern } from "./types.ts";

export type PatternResult = { readonly ok: true; readonly pattern: DescriptorPattern } | { readonly ok: false; readonly message: string };

/**
 * Read a descriptor pattern.
 *
 * @example
 * parsePattern("plan=pro,user=acme-*"); // { ok: true, pattern: { entries: [{ key: "plan", value: "pro" }, { key: "user", value: "acme-" }], wildcard: true } }
 * parsePattern("user=a%2Ab");           // exact value "a*b"
 */
export function parsePattern(text: string): PatternResult {
  if (text === "") return { ok: false, message: "must be key=value pairs separated by commas, like user=acme or user=acme-*" };
  const pairs = text.split(",");
  if (pairs.length > BOUNDS.maxDepth) return { ok: false, message: `has ${pairs.length} entries; descriptors have at most ${BOUNDS.maxDepth}` };
  const entries: DescriptorEntry[] = [];
  let wildcard = false;
  for (const [i, pair] of pairs.entries()) {
    const where = `entry ${i + 1} (${JSON.stringify(pair)})`;
    const eq = pair.indexOf("=");
    if (eq <= 0 || pair.indexOf("=", eq + 1) >= 0)
      return { ok: false, message: `${where} is not key=value; escape "," "=" "%" inside keys and values as %2C %3D %25` };
    const rawValue = pair.slice(eq + 1);
    const star = rawValue.endsWith("*");
    if (star && i < pairs.length - 1) return { ok: false, message: `${where}: only the last value may end with the wildcard "*" (write a literal * as %2A)` };
    wildcard = star;
    const key = decode(pair.slice(0, eq));
    const value = decode(star ? rawValue.slice(0, -1) : rawValue);
    if (key === undefined || value === undefined) return { ok: false, message: `${where} is not correctly percent-encoded; escape "," "=" "%" as %2C %3D %25` };
    if (key.includes("\u0000")) return { ok: false, message: `${where}: the key must not contain the NUL character` };
    if (value === "" && !star) return { ok: false, message: `${where}: the value is empty (to match any value, write ${key}=*)` };
    if (isLongValue(value)) {
      return {
        ok: false,
        message: `${where}: the value is longer than ${MAX_VALUE_BYTES} bytes of UTF-8 (such values are counted by their digest, which no override names)`,
      };
    }
    entries.push({ key, value });
  }
  return { ok: true, pattern: { entries, wildcard } };
}

/**
 * The canonical text of a pattern (what names it in storage and listings).
 *
 * @example
 * patternText({ entries: [{ key: "user", value: "a,b" }], wildcard: true }); // "user=a%2Cb*"
 */
export function patternText(pattern: DescriptorPattern): string {
  const last = pattern.entries.length - 1;
  return pattern.entries.map((e, i) => `${escapePart(e.key)}=${escapePart(e.value)}${i === last && pattern.wildcard ? "*" : ""}`).join(",");
}

/**
 * Lookup key of exact entries (JSON: unambiguous whatever the values hold).
 *
 * @example
 * exactKey([{ key: "user", value: "acme" }]); // '["user","acme"]'
 */
export function exactKey(entries: readonly DescriptorEntry[]): string {
  const flat: string[] = [];
  for (const entry of entries) flat.push(entry.key, entry.value);
  return JSON.stringify(flat);
}

/**
 * Lookup key of every entry but the last, and the last one's key: the part
 * a wildcard fixes before its prefix (JSON text never holds a raw NUL, so
 * `headKey + "\u0000" + prefix` is unambiguous).
 *
 * @example
 * headKey([{ key: "plan", value: "pro" }, { key: "user", value: "acme" }]); // '["plan","pro","user"]'
 */
export function headKey(entries: readonly DescriptorEntry[]): string {
  const flat: string[] = [];
  for (let i = 0; i < entries.length - 1; i++) flat.push(entries[i].key, entries[i].value);
  flat.push(entries[entries.length - 1].key);
  return JSON.stringify(flat);
}

function escapePart(text: string): string {
  // A trailing literal "*" must not read back as the wildcard.
  return text.replace(/%/g, "%25").replace(/,/g, "%2C").replace(/=/g, "%3D").replace(/\*$/, "%2A");
}

function decode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}
