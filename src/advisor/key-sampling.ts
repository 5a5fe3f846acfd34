/**
 * Which descriptor keys are in the traffic sample (docs/advisor.md,
 * "Sample"): a key (its domain and entries) is sampled when a keyed hash
 * of it, read as a fraction of 2^32, falls under the sampling rate. Every isolate
 * computes the same answer, so every request of a sampled key is kept and
 * its arrival pattern stays true. A plain function, cheap enough for every
 * request.
 */
import { halfSipHash, type ShardKey } from "../stored/shard-hash.ts";
import type { DescriptorEntry } from "../rules/types.ts";

const TWO_TO_32 = 2 ** 32;

/** Keys of the sampling hash, per shard key: derived once per isolate. */
const derived = new WeakMap<ShardKey, ShardKey>();

/**
 * Whether the key `domain` + `entries` is sampled at `rate` (0 to 1): always
 * at 1, never at 0. `shardKey`: the deployment's (docs/deploy.md, "Shard
 * key"), from which the hash's key is derived.
 *
 * @example
 * keySampled("api", [{ key: "user", value: "u1" }], 1, edge.shardKey); // true
 * keySampled("api", [{ key: "user", value: "u1" }], 0, edge.shardKey); // false
 */
export function keySampled(domain: string, entries: readonly DescriptorEntry[], rate: number, shardKey: ShardKey): boolean {
  if (rate >= 1) return true;
  if (rate <= 0) return false;
  return hashSampled(keyHash(domain, entries, shardKey), rate);
}

/**
 * Whether a key of hash `hash` (see `keyHash`) is sampled at `rate`: the
 * hash read as a fraction of 2^32 is under it. At a lower rate a subset of
 * the keys in at a higher one: thinning only ever drops keys.
 *
 * @example
 * hashSampled(0, 0.1); // true
 */
export function hashSampled(hash: number, rate: number): boolean {
  return hash / TWO_TO_32 < rate;
}

/**
 * HalfSipHash-2-4 of the domain and every key and value (each ended by
 * U+0000, so no two keys run together), keyed by a key derived from the
 * deployment's shard key: no client can choose values that are never (or
 * always) sampled without the secret. Unsigned 32 bits.
 *
 * @example
 * keyHash("api", [{ key: "user", value: "u1" }], edge.shardKey); // a number from 0 to 2^32 − 1
 */
export function keyHash(domain: string, entries: readonly DescriptorEntry[], shardKey: ShardKey): number {
  let keyed = derived.get(shardKey);
  if (keyed === undefined)
    derived.set(shardKey, (keyed = { k0: halfSipHash(shardKey, "floodgate/sample/0"), k1: halfSipHash(shardKey, "floodgate/sample/1") }));
  let text = `${domain}\u0000`;
  for (const entry of entries) text += `${entry.key}\u0000${entry.value}\u0000`;
  return halfSipHash(keyed, text);
}
