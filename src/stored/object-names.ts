/**
 * STORED FORMAT (docs/stored-formats.md): the names of counter objects. An
 * object's name is its identity: a name that changes is a new, empty object,
 * and isolates of the old and new deploy would count in different ones.
 * These change only as docs/stored-formats.md says.
 */
import { halfSipHash, type ShardKey } from "./shard-hash.ts";

/** Version of the names below: raised with any change of what they produce. */
export const OBJECT_NAMES_VERSION = 1;

/**
 * Between a global key or object name and its region: global keys are JSON
 * arrays and global object names end in a shard number or a JSON array, so
 * neither ends in `@` + region, and a regional copy never collides with a
 * global counter or object, nor with another region's.
 */
export const REGION_SEPARATOR = "@";

/**
 * The name of the object that owns `key`: `domain/key/<key>` per key, or
 * `domain/shard/<n>` with n the keyed hash of the key modulo `shards`.
 *
 * @example
 * objectName("api", "sharded", 64, key, shardKey); // "api/shard/17"
 * objectName("api", "per_key", 64, key, shardKey); // 'api/key/["api",["remote_address","203.0.113.7"]]'
 */
export function objectName(domain: string, placement: "sharded" | "per_key", shards: number, key: string, shardKey: ShardKey): string {
  return placement === "per_key" ? `${domain}/key/${key}` : `${domain}/shard/${halfSipHash(shardKey, key) % shards}`;
}

/**
 * The region's copy of a counter key or object name.
 *
 * @example
 * inRegion('["api",["user","u1"]]', "weur"); // '["api",["user","u1"]]@weur'
 * inRegion("api/shard/17", "weur"); // "api/shard/17@weur"
 */
export function inRegion(name: string, region: string): string {
  return `${name}${REGION_SEPARATOR}${region}`;
}
