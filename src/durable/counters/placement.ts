/**
 * Which Durable Object owns a counter. Every counter lives in exactly one
 * object, so its updates are serialised by that object's single thread.
 * Sharded placement bounds the number of objects (and so cost and cold
 * starts) whatever keys clients invent; per-key placement gives each
 * descriptor value its own object. The shard comes from a keyed hash
 * (`shardKey`, the deployment's secret: docs/deploy.md, "Shard key"), so
 * nobody outside can choose keys that share one object. Every path that
 * places a counter (decisions, the admin counters endpoint) passes the
 * isolate's one key.
 *
 * Counter keys, object names and the shard hash outlive deploys: they live
 * in src/stored/ (docs/stored-formats.md), re-exported here.
 */
export { counterKey } from "../../stored/counter-ids.ts";
export { objectName } from "../../stored/object-names.ts";
export { halfSipHash, shardKeyFrom, type ShardKey } from "../../stored/shard-hash.ts";
