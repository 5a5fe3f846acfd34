/**
 * The sample's digests of client-chosen values (docs/advisor.md, "Sample"):
 * `<prefix>~<16 lowercase hex>`, the prefix the first min(4, floor(len/4))
 * characters of the value and the hex the first 8 bytes of its SHA-256.
 * Unkeyed on purpose: a replay digests a proposed rule's exact value the
 * same way and finds the sampled requests it matches.
 */

const DIGEST_HEX_CHARS = 16;
const PREFIX_MAX = 4;
const DIGEST_SHAPE = /~[0-9a-f]{16}$/;

/**
 * The sample's form of a client-chosen value.
 *
 * @example
 * await digestValue("customer-42"); // "cu~" + 16 hex digits
 */
export async function digestValue(value: string): Promise<string> {
  const prefix = value.slice(0, Math.min(PREFIX_MAX, Math.floor(value.length / 4)));
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(value)));
  let hex = "";
  for (const byte of hash.subarray(0, DIGEST_HEX_CHARS / 2)) hex += byte.toString(16).padStart(2, "0");
  return `${prefix}~${hex}`;
}

/**
 * Whether a sampled value has a digest's shape (a raw value could too; the
 * replay tries a raw match first).
 *
 * @example
 * looksDigested("cu~0123456789abcdef"); // true
 * looksDigested("/v1/items");           // false
 */
export function looksDigested(value: string): boolean {
  return value.length <= PREFIX_MAX + 1 + DIGEST_HEX_CHARS && DIGEST_SHAPE.test(value);
}
