/**
 * Bounded descriptor values (docs/rules.md, "Long values"): a value longer
 * than MAX_VALUE_BYTES of UTF-8 is stored under its SHA-256 digest behind a
 * readable prefix, so a client cannot make a counter key, an object name, a
 * metric label or a dashboard row as long as it likes. Rules match the full
 * value first (a suffix wildcard such as `*.png` matches a long name as it
 * does a short one); only the key the counter, metrics and the dashboard see
 * is the digest. Short values (nearly all) cost one length check and no await.
 */
import { matchDescriptor } from "./match.ts";
import type { DescriptorEntry, DescriptorMatch, DomainDescriptors } from "../types.ts";

/** Longest descriptor value, in bytes of UTF-8, kept as sent. */
export const MAX_VALUE_BYTES = 256;

/** Characters of a long value kept in front of its digest, so people can tell keys apart. */
export const READABLE_PREFIX_CHARS = 32;

const encoder = new TextEncoder();

/**
 * Whether `value` is longer than MAX_VALUE_BYTES of UTF-8 (one code unit is
 * 1 to 3 bytes, so only lengths in between are measured).
 *
 * @example
 * isLongValue("a".repeat(256)); // false
 * isLongValue("é".repeat(129)); // true: 258 bytes
 */
export function isLongValue(value: string): boolean {
  if (value.length * 3 <= MAX_VALUE_BYTES) return false;
  if (value.length > MAX_VALUE_BYTES) return true;
  return encoder.encode(value).length > MAX_VALUE_BYTES;
}

/**
 * The key of a long value: its first READABLE_PREFIX_CHARS characters, `…sha256:`
 * and the hex SHA-256 of its UTF-8 (short enough never to be long itself).
 *
 * @example
 * await longValueKey("k".repeat(1000)); // "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk…sha256:4c1f…" (64 hex digits)
 */
export async function longValueKey(value: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(value)));
  let hex = "";
  for (const byte of digest) hex += byte.toString(16).padStart(2, "0");
  let end = READABLE_PREFIX_CHARS;
  // Never cut a surrogate pair in two.
  const last = value.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${value.slice(0, end)}…sha256:${hex}`;
}

/**
 * `entries` with every long value replaced by its key; the same array when
 * none is long, without waiting.
 *
 * @example
 * const entries = await boundedEntries([{ key: "token", value: longText }]); // [{ key: "token", value: "…sha256:…" }]
 */
export function boundedEntries(entries: readonly DescriptorEntry[]): readonly DescriptorEntry[] | Promise<readonly DescriptorEntry[]> {
  if (!entries.some((entry) => isLongValue(entry.value))) return entries;
  return Promise.all(entries.map(async (entry) => (isLongValue(entry.value) ? { key: entry.key, value: await longValueKey(entry.value) } : entry)));
}

/**
 * A decision's descriptors with every long value keyed by its digest, each
 * such descriptor matched against the rules on its full value first (the
 * match travels as its `overrides` entry, its shared counter entries bounded
 * too); the same array, without waiting, when no value is long.
 *
 * @example
 * const bounded = boundedDescriptors(requests);
 * plan(bounded instanceof Promise ? await bounded : bounded, options, precount);
 */
export function boundedDescriptors(requests: readonly DomainDescriptors[]): readonly DomainDescriptors[] | Promise<readonly DomainDescriptors[]> {
  if (!requests.some(hasLongValue)) return requests;
  return Promise.all(requests.map((request) => (hasLongValue(request) ? boundedRequest(request) : request)));
}

async function boundedRequest(request: DomainDescriptors): Promise<DomainDescriptors> {
  const overrides: (DescriptorMatch | undefined)[] = [];
  const descriptors = await Promise.all(
    request.descriptors.map(async (entries, i) => {
      const given = request.overrides?.[i];
      if (!entries.some((entry) => isLongValue(entry.value))) {
        overrides[i] = given;
        return entries;
      }
      // Matched on what was sent: a digest ends in hex, so a suffix or a long prefix would never match it.
      const match = given ?? matchDescriptor(request.domain, entries);
      overrides[i] = match?.counterEntries === undefined ? match : { ...match, counterEntries: await boundedEntries(match.counterEntries) };
      return boundedEntries(entries);
    }),
  );
  return { ...request, descriptors, overrides };
}

function hasLongValue(request: DomainDescriptors): boolean {
  for (const entries of request.descriptors) for (const entry of entries) if (isLongValue(entry.value)) return true;
  return false;
}
