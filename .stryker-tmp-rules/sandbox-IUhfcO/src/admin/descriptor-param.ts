/**
 * The `descriptor` query parameter of `/__ratelimit/counters`:
 * `key=value,key2=value2`, where `,` and `=` separate and every key and
 * value is percent-decoded after splitting, so a value containing `,` `=` or
 * `%` is written `%2C` `%3D` `%25` (and a space `%20`; `+` is a plain `+`).
 */
// @ts-nocheck

import type { DescriptorEntry } from "../rules/types.ts";

export type ParsedParams =
  | { readonly ok: true; readonly domain: string; readonly entries: readonly DescriptorEntry[] }
  | { readonly ok: false; readonly message: string };

/**
 * Read `domain` and `descriptor` from a raw query string (`url.search`).
 * The raw text is split before decoding, which is what makes `%2C` a comma
 * inside a value rather than a separator.
 *
 * @example
 * parseCounterQuery("?domain=api&descriptor=path=/login,remote_address=192.0.2.1");
 * // { ok: true, domain: "api", entries: [{ key: "path", value: "/login" }, { key: "remote_address", value: "192.0.2.1" }] }
 * parseCounterQuery("?domain=api&descriptor=a%2Cb=1"); // one entry, key "a,b"
 */
export function parseCounterQuery(search: string): ParsedParams {
  const raw = new Map<string, string[]>();
  for (const part of search.replace(/^\?/, "").split("&")) {
    if (part === "") continue;
    const eq = part.indexOf("=");
    const name = eq < 0 ? part : part.slice(0, eq);
    const list = raw.get(name) ?? [];
    list.push(eq < 0 ? "" : part.slice(eq + 1));
    raw.set(name, list);
  }
  const domainRaw = raw.get("domain");
  const descriptorRaw = raw.get("descriptor");
  if (domainRaw === undefined || domainRaw.length !== 1) return { ok: false, message: 'give exactly one "domain" query parameter' };
  if (descriptorRaw === undefined || descriptorRaw.length !== 1) {
    return { ok: false, message: 'give exactly one "descriptor" query parameter, like descriptor=key=value,key2=value2' };
  }
  const domain = decode(domainRaw[0]);
  if (domain === undefined || domain === "") return { ok: false, message: '"domain" must be a non-empty, correctly percent-encoded string' };
  const entries: DescriptorEntry[] = [];
  const pairs = descriptorRaw[0].split(",");
  for (const [i, pair] of pairs.entries()) {
    const eq = pair.indexOf("=");
    if (eq <= 0) {
      return {
        ok: false,
        message: `descriptor entry ${i + 1} (${JSON.stringify(pair)}) is not key=value; escape "," "=" "%" inside keys and values as %2C %3D %25`,
      };
    }
    const key = decode(pair.slice(0, eq));
    const value = decode(pair.slice(eq + 1));
    // A second raw "=" is ambiguous: the value's own "=" must be written %3D.
    if (key === undefined || value === undefined || pair.indexOf("=", eq + 1) >= 0) {
      return { ok: false, message: `descriptor entry ${i + 1} (${JSON.stringify(pair)}) is not correctly percent-encoded; escape "," "=" "%" as %2C %3D %25` };
    }
    entries.push({ key, value });
  }
  return { ok: true, domain, entries };
}

function decode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}
