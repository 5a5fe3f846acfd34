/** The shard hash is a stored format: it lives in src/stored/shard-hash.ts (docs/stored-formats.md). */
export * from "../stored/shard-hash.ts";
