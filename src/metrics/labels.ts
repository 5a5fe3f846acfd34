/**
 * Label values cut to a bounded length (docs/metrics.md, "Cardinality"):
 * `detailed_metric` descriptors and unknown domains come from clients, and a
 * series is kept in memory, in SQLite and in every scrape.
 */
import { halfSipHash } from "../durable/shard-hash.ts";

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
