/**
 * Which Durable Object owns a counter. Every counter lives in exactly one
 * object, so its updates are serialised by that object's single thread.
 */
// @ts-nocheck

import type { DescriptorEntry, Placement } from "../rules/types.ts";

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
 * 32-bit FNV-1a over UTF-16 code units: stable across isolates and deploys,
 * which is all shard selection needs (not a security boundary).
 *
 * @example
 * fnv1a("hello"); // 1335831723
 */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/**
 * The name of the object that owns `key`. Sharded placement bounds the
 * number of objects (and so cost and cold starts) whatever keys clients
 * invent; per-key placement gives each descriptor value its own object.
 *
 * @example
 * objectName("api", "sharded", 64, key); // "api/shard/17"
 * objectName("api", "per_key", 64, key); // 'api/key/["api",["remote_address","203.0.113.7"]]'
 */
export function objectName(domain: string, placement: Placement, shards: number, key: string): string {
  return placement === "per_key" ? `${domain}/key/${key}` : `${domain}/shard/${fnv1a(key) % shards}`;
}
