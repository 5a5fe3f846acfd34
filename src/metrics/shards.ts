/**
 * The metrics objects, sharded (docs/metrics.md, "Where counts go"): each
 * isolate sends all its counts to one of METRICS_SHARDS objects, picked by
 * a hash of an id it draws when it starts, so no object takes more than
 * about 1 / METRICS_SHARDS of the isolates' sends; the metrics and traffic
 * endpoints read every shard and add them up.
 */

/** How many metrics objects share the isolates' sends. */
export const METRICS_SHARDS = 8;

/** The first shard's name: the one object of deployments from before sharding, so its sums stay in view. */
export const FIRST_METRICS_SHARD = "global";

/**
 * The name of shard `index` (0 to METRICS_SHARDS − 1).
 *
 * @example
 * metricsShardName(0); // "global"
 * metricsShardName(3); // "global/3"
 */
export function metricsShardName(index: number): string {
  return index === 0 ? FIRST_METRICS_SHARD : `${FIRST_METRICS_SHARD}/${index}`;
}

/**
 * Every shard's name, in order.
 *
 * @example
 * metricsShardNames().length; // 8
 */
export function metricsShardNames(): string[] {
  return Array.from({ length: METRICS_SHARDS }, (_, i) => metricsShardName(i));
}

/**
 * The shard an isolate whose id is `isolateId` sends to: FNV-1a of the id,
 * modulo METRICS_SHARDS, so random ids spread evenly.
 *
 * @example
 * metricsShardOf(crypto.randomUUID()); // "global/5", say
 */
export function metricsShardOf(isolateId: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < isolateId.length; i++) {
    hash ^= isolateId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return metricsShardName((hash >>> 0) % METRICS_SHARDS);
}
