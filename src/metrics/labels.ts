/**
 * Label values cut to a bounded length (docs/metrics.md, "Cardinality"):
 * `detailed_metric` descriptors and unknown domains come from clients, and a
 * series is kept in memory, in SQLite and in every scrape; and descriptor
 * values shown without the secrets they may be (`shownValue`), hashed with a
 * key derived from the deployment's shard key (docs/deploy.md, "Shard key").
 */
import { halfSipHash, type ShardKey } from "../stored/shard-hash.ts";

/** Longest label value kept; a longer one is cut to a prefix, `~` and 8 hex digits of a hash of the whole. */
export const METRIC_LABEL_MAX_LENGTH = 128;

// Not a secret: the hash keeps two long values that share a prefix apart, it guards nothing.
const LABEL_KEY = { k0: 0x6c61626c, k1: 0x63757421 };
const PREFIX = METRIC_LABEL_MAX_LENGTH - 9;

/**
 * `value`, or when longer than METRIC_LABEL_MAX_LENGTH its first 119
 * characters (never half a surrogate pair), `~` and a hash of the whole.
 *
 * @example
 * cutLabel("api_key_abc"); // "api_key_abc"
 * cutLabel("x".repeat(4096)).length; // 128
 */
export function cutLabel(value: string): string {
  if (value.length <= METRIC_LABEL_MAX_LENGTH) return value;
  const end = isHighSurrogate(value.charCodeAt(PREFIX - 1)) ? PREFIX - 1 : PREFIX;
  return `${value.slice(0, end)}~${halfSipHash(LABEL_KEY, value).toString(16).padStart(8, "0")}`;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

// Keys whose values say where a request went or came from, never a credential: shown as they are.
const PLAIN_KEYS: ReadonlySet<string> = new Set(["remote_address", "path", "method", "host"]);

/** The two HalfSipHash keys of `shownValue`'s 64-bit hash, derived from a deployment's shard key (`labelKey`). */
export interface LabelKey {
  readonly first: ShardKey;
  readonly second: ShardKey;
}

/**
 * The key `shownValue` hashes with, derived from the deployment's shard key
 * (`SHARD_KEY`, or the one derived from the counters namespace:
 * docs/deploy.md, "Shard key"): four HalfSipHash words of fixed labels under
 * it, so it is none of the keys the shard, enforcement, sampling or digest
 * hashes use. Derived once per isolate (the metrics recorder keeps it): a
 * shown value is then two hashes, no allocation of a key per request.
 *
 * @example
 * const key = labelKey(edge.shardKey);
 * shownValue("api_key", "sk-live-0123", key);
 */
export function labelKey(shardKey: ShardKey): LabelKey {
  const word = (i: number) => halfSipHash(shardKey, `floodgate/metric-label/${i}`);
  return { first: { k0: word(0), k1: word(1) }, second: { k0: word(2), k1: word(3) } };
}

/**
 * A descriptor value as metrics and the dashboard show it
 * (docs/metrics.md, "Cardinality"): the built-in `remote_address`, `path`,
 * `method` and `host` as they are; any other key's value (an API key, a
 * session cookie, a user id) as at most its first 4 characters (a quarter
 * of it, for short ones), `…#` and 16 hex digits of a 64-bit hash of the
 * whole keyed with `key` (`labelKey` of the deployment's shard key), so rows
 * stay apart and a key can be recognised, but the secret is not kept, and
 * nobody without the deployment's secret can test a guess (every IPv4
 * address, say) against a shown value.
 *
 * @example
 * const key = labelKey(edge.shardKey);
 * shownValue("remote_address", "192.0.2.1", key); // "192.0.2.1"
 * shownValue("api_key", "sk-live-0123456789abcdef", key); // "sk-l…#5f0e…" (16 hex digits, this deployment's)
 */
export function shownValue(key: string, value: string, labels: LabelKey): string {
  if (PLAIN_KEYS.has(key)) return value;
  let end = Math.min(4, Math.floor(value.length / 4));
  if (end > 0 && isHighSurrogate(value.charCodeAt(end - 1))) end -= 1;
  const hash = hex8(halfSipHash(labels.first, value)) + hex8(halfSipHash(labels.second, value));
  return `${value.slice(0, end)}…#${hash}`;
}

function hex8(word: number): string {
  return word.toString(16).padStart(8, "0");
}

/**
 * `entries` with each value as `shownValue` gives it; the same array when none changes.
 *
 * @example
 * shownEntries([{ key: "user", value: "alice" }], labelKey(edge.shardKey)); // [{ key: "user", value: "a…#…" }]
 */
export function shownEntries<E extends { readonly key: string; readonly value: string }>(
  entries: readonly E[],
  labels: LabelKey,
): readonly { key: string; value: string }[] {
  if (entries.every((e) => PLAIN_KEYS.has(e.key))) return entries;
  return entries.map((e) => ({ key: e.key, value: shownValue(e.key, e.value, labels) }));
}
