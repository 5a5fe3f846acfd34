/**
 * Which Durable Object owns a counter. Every counter lives in exactly one
 * object, so its updates are serialised by that object's single thread.
 */
import type { DescriptorEntry, Placement } from "../rules/types.ts";
import { halfSipHash, type ShardKey } from "./shard-hash.ts";

export { halfSipHash, shardKeyFrom, type ShardKey } from "./shard-hash.ts";

/**
 * The counter key of a descriptor in a domain. JSON encoding keeps it
 * unambiguous whatever the values contain (`,` `=` `:` `/` or NUL), so two
 * different descriptors never share a counter.
 *
 * @example
 * counterKey("api", [{ key: "remote_address", value: "203.0.113.7" }]);
 * // '["api",["remote_address","203.0.113.7"]]'
 */
export function counterKey(domain: string, entries: readonly DescriptorEntry[]): string {
  const parts: string[] = [domain];
  for (const entry of entries) parts.push(entry.key, entry.value);
  return JSON.stringify([parts[0], parts.slice(1)]);
}

/**
 * The name of the object that owns `key`. Sharded placement bounds the
 * number of objects (and so cost and cold starts) whatever keys clients
 * invent; per-key placement gives each descriptor value its own object.
 * The shard comes from a keyed hash (`shardKey`, the deployment's secret:
 * docs/deploy.md, "Shard key"), so nobody outside can choose keys that
 * share one object. Every path that places a counter (decisions, the
 * admin counters endpoint) passes the isolate's one key.
 *
 * @example
 * const shardKey = shardKeyFrom(env.SHARD_KEY, env.COUNTERS);
 * objectName("api", "sharded", 64, key, shardKey); // "api/shard/17"
 * objectName("api", "per_key", 64, key, shardKey); // 'api/key/["api",["remote_address","203.0.113.7"]]'
 */
export function objectName(domain: string, placement: Placement, shards: number, key: string, shardKey: ShardKey): string {
  return placement === "per_key" ? `${domain}/key/${key}` : `${domain}/shard/${halfSipHash(shardKey, key) % shards}`;
}
