/**
 * Which descriptor keys are in the traffic sample (docs/advisor.md,
 * "Sample"): a key (its domain and entries) is sampled when a hash of it,
 * read as a fraction of 2^32, falls under the sampling rate. Every isolate
 * computes the same answer, so every request of a sampled key is kept and
 * its arrival pattern stays true. A plain function, cheap enough for every
 * request.
 */
import type { DescriptorEntry } from "../rules/types.ts";

const TWO_TO_32 = 2 ** 32;

/**
 * Whether the key `domain` + `entries` is sampled at `rate` (0 to 1): always
 * at 1, never at 0.
 *
 * @example
 * keySampled("api", [{ key: "user", value: "u1" }], 1); // true
 * keySampled("api", [{ key: "user", value: "u1" }], 0); // false
 */
export function keySampled(domain: string, entries: readonly DescriptorEntry[], rate: number): boolean {
  if (rate >= 1) return true;
  if (rate <= 0) return false;
  return keyHash(domain, entries) / TWO_TO_32 < rate;
}

/**
 * FNV-1a over the domain and every key and value (each ended by U+0000, so
 * no two keys run together), then MurmurHash3's finalizer so nearby keys
 * spread over the whole range. Unsigned 32 bits.
 *
 * @example
 * keyHash("api", [{ key: "user", value: "u1" }]); // a number from 0 to 2^32 − 1
 */
export function keyHash(domain: string, entries: readonly DescriptorEntry[]): number {
  let hash = mix(0x811c9dc5, domain);
  for (const entry of entries) hash = mix(mix(hash, entry.key), entry.value);
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

function mix(start: number, text: string): number {
  let hash = start;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return Math.imul(hash, 0x01000193);
}
