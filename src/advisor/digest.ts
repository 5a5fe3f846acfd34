/**
 * The digest a client-controlled descriptor value is kept as in the traffic
 * sample (docs/advisor.md, "Sample"): a short readable prefix and the first
 * 8 bytes of its SHA-256, so the sample never holds a raw header, cookie,
 * query, address or token value, while a replay can digest a proposed
 * rule's exact value the same way and find it.
 */

const encoder = new TextEncoder();

/**
 * `<prefix>~<16 lowercase hex>`: the prefix is the value's first
 * min(4, floor(length / 4)) characters (code points, so no half of a
 * surrogate pair), the hex the first 8 bytes of SHA-256 of its UTF-8 bytes.
 * Unkeyed on purpose: the same value gives the same digest everywhere.
 *
 * @example
 * await digestValue("cust_3f9a0c12b7e4d6a1"); // "cust~…" (16 hex digits after "~")
 * await digestValue("ab"); // "~…": too short to show any of it
 */
export async function digestValue(value: string): Promise<string> {
  const characters = Array.from(value);
  const prefix = characters.slice(0, Math.min(4, Math.floor(characters.length / 4))).join("");
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(value)));
  let hex = "";
  for (let i = 0; i < 8; i++) hex += hash[i].toString(16).padStart(2, "0");
  return `${prefix}~${hex}`;
}

const DIGEST_SHAPE = /~[0-9a-f]{16}$/;

/**
 * Whether a sampled value has a digest's shape (a raw value could too; the
 * replay tries a raw match first).
 *
 * @example
 * looksDigested("cu~0123456789abcdef"); // true
 * looksDigested("/v1/items");           // false
 */
export function looksDigested(value: string): boolean {
  return value.length <= 4 * 2 + 1 + 16 && DIGEST_SHAPE.test(value);
}
