/**
 * STORED FORMAT (docs/stored-formats.md): the keyed hash that picks a
 * counter's shard, and so the name of the object that holds it. A change
 * moves every sharded counter to another object (counted from zero there):
 * it changes only as docs/stored-formats.md says.
 *
 * The keyed hash that picks a counter's shard (docs/deploy.md, "Shard key"):
 * HalfSipHash-2-4 (Aumasson and Bernstein), the keyed hash the Linux kernel
 * uses for its hash tables against hash flooding. Without the key nobody can
 * tell which descriptors land in one object, so nobody can aim keys at one.
 * It runs in 32-bit integer arithmetic straight over a string's UTF-16LE
 * code units (two to a message word), synchronous and allocation-free: it
 * is on every decision's path.
 */

/** Version of the shard hash and of the default key's derivation: raised with any change of what they produce. */
export const SHARD_HASH_VERSION = 1;

/** A HalfSipHash key: 64 bits as two 32-bit words. */
export interface ShardKey {
  readonly k0: number;
  readonly k1: number;
}

/**
 * HalfSipHash-2-4 with a 32-bit result, of `text`'s UTF-16LE bytes.
 *
 * @example
 * halfSipHash({ k0: 0x03020100, k1: 0x07060504 }, ""); // 0x5b9f35a9, the reference vector
 */
export function halfSipHash(key: ShardKey, text: string): number {
  let v0 = key.k0 | 0;
  let v1 = key.k1 | 0;
  let v2 = 0x6c796765 ^ key.k0;
  let v3 = 0x74656462 ^ key.k1;
  const n = text.length;
  const words = n >> 1;
  // Steps 0 … words−1 take two code units each, step `words` the tail and the length, the last one finalises.
  for (let step = 0; step <= words + 1; step++) {
    let m = 0;
    if (step < words) m = text.charCodeAt(2 * step) | (text.charCodeAt(2 * step + 1) << 16);
    else if (step === words) m = (((n * 2) & 0xff) << 24) | (n & 1 ? text.charCodeAt(n - 1) : 0);
    else v2 ^= 0xff;
    const final = step > words;
    if (!final) v3 ^= m;
    for (let r = final ? 4 : 2; r > 0; r--) {
      v0 = (v0 + v1) | 0;
      v1 = (v1 << 5) | (v1 >>> 27);
      v1 ^= v0;
      v0 = (v0 << 16) | (v0 >>> 16);
      v2 = (v2 + v3) | 0;
      v3 = (v3 << 8) | (v3 >>> 24);
      v3 ^= v2;
      v0 = (v0 + v3) | 0;
      v3 = (v3 << 7) | (v3 >>> 25);
      v3 ^= v0;
      v2 = (v2 + v1) | 0;
      v1 = (v1 << 13) | (v1 >>> 19);
      v1 ^= v2;
      v2 = (v2 << 16) | (v2 >>> 16);
    }
    if (!final) v0 ^= m;
  }
  return (v1 ^ v3) >>> 0;
}

// Fixed keys that stretch a secret of any length into a ShardKey (two independent 32-bit hashes of it).
const STRETCH_0: ShardKey = { k0: 0x666c6f6f, k1: 0x64676174 };
const STRETCH_1: ShardKey = { k0: 0x73686172, k1: 0x642d6b65 };

/** The name whose object id (never used as an object) is the default secret: unknown outside the account, stable across deploys. */
export const DEFAULT_SHARD_KEY_NAME = "floodgate/shard-key";

/** What the default key needs of the counters namespace. */
export interface NamesIds {
  idFromName(name: string): { toString(): string };
}

/**
 * The shard key from a secret (`SHARD_KEY`, or the middleware's `shardKey`),
 * or by default from the counters namespace's id of a name no object is
 * made with: ids are derived from a key of the namespace, so it is per
 * account and namespace, secret, and the same in every isolate and deploy.
 *
 * @example
 * const key = shardKeyFrom(env.SHARD_KEY, env.COUNTERS);
 */
export function shardKeyFrom(secret: string | undefined, counters: NamesIds): ShardKey {
  const text = secret !== undefined && secret !== "" ? secret : `id:${counters.idFromName(DEFAULT_SHARD_KEY_NAME).toString()}`;
  return { k0: halfSipHash(STRETCH_0, text), k1: halfSipHash(STRETCH_1, text) };
}
