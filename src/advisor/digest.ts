/**
 * The digest a client-controlled descriptor value is kept as in the traffic
 * sample (docs/advisor.md, "Values are digests"): a short readable prefix
 * and the first 8 bytes of an HMAC-SHA-256 of it, keyed from the
 * deployment's shard key (`SHARD_KEY`, docs/deploy.md "Shard key"). The
 * sample never holds a raw header, cookie, query, address or token value,
 * and nobody without the secret can test a guessed value against a digest
 * (an address has few enough values to try them all); a replay given the
 * secret digests a proposed rule's exact value the same way and finds it.
 */
import { halfSipHash, type ShardKey, shardKeyFrom } from "../stored/shard-hash.ts";

const encoder = new TextEncoder();

/** The HMAC key of each shard key: derived once per isolate (or command). */
const hmacKeys = new WeakMap<ShardKey, Promise<CryptoKey>>();

/**
 * The HMAC-SHA-256 key the digests of `shardKey`'s deployment are made
 * with: four 32-bit words, each a HalfSipHash of a fixed label under the
 * shard key (so it is none of the keys the shard, enforcement or sampling
 * hashes use), as 16 little-endian bytes.
 *
 * @example
 * const key = await digestKey(edge.shardKey);
 */
export function digestKey(shardKey: ShardKey): Promise<CryptoKey> {
  let key = hmacKeys.get(shardKey);
  if (key === undefined) {
    const words = new DataView(new ArrayBuffer(16));
    for (let i = 0; i < 4; i++) words.setUint32(i * 4, halfSipHash(shardKey, `floodgate/sample-digest/${i}`), true);
    key = crypto.subtle.importKey("raw", words.buffer, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    hmacKeys.set(shardKey, key);
  }
  return key;
}

/**
 * `<prefix>~<16 lowercase hex>`: the prefix is the value's first
 * min(4, floor(length / 4)) characters (code points, so no half of a
 * surrogate pair), the hex the first 8 bytes of HMAC-SHA-256 of its UTF-8
 * bytes under `digestKey(shardKey)`: the same value gives the same digest in
 * every isolate of a deployment, and another deployment's digest of it differs.
 *
 * @example
 * await digestValue("cust_3f9a0c12b7e4d6a1", edge.shardKey); // "cust~…" (16 hex digits after "~")
 * await digestValue("ab", edge.shardKey); // "~…": too short to show any of it
 */
export async function digestValue(value: string, shardKey: ShardKey): Promise<string> {
  const characters = Array.from(value);
  const prefix = characters.slice(0, Math.min(4, Math.floor(characters.length / 4))).join("");
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", await digestKey(shardKey), encoder.encode(value)));
  let hex = "";
  for (let i = 0; i < 8; i++) hex += mac[i].toString(16).padStart(2, "0");
  return `${prefix}~${hex}`;
}

/**
 * The shard key of a deployment whose `SHARD_KEY` secret is `secret`, as
 * its isolates derive it: what `rules:replay --shard-key` digests with.
 *
 * @example
 * const shardKey = shardKeyOfSecret(process.env.SHARD_KEY);
 */
export function shardKeyOfSecret(secret: string): ShardKey {
  return shardKeyFrom(secret, {
    idFromName(): never {
      throw new Error("a deployment without SHARD_KEY keys its digests from its COUNTERS namespace");
    },
  });
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

const SEGMENT_DIGEST = /(^|\/)~[0-9a-f]{16}(?=\/|$)/;

/**
 * Whether a sampled path (a `path` entry, docs/advisor.md "Values are
 * digests") has a segment kept as its digest (`~` and 16 hex digits).
 *
 * @example
 * hasDigestedSegment("/reset-password/~3b1f0c25434b09c6"); // true
 * hasDigestedSegment("/v1/items");                         // false
 */
export function hasDigestedSegment(path: string): boolean {
  return SEGMENT_DIGEST.test(path);
}
