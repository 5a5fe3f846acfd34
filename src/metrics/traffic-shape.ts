/**
 * The shape of the dashboard's traffic (docs/dashboard.md): its periods and
 * bounds, how a policy and a key are named, and the batch an isolate sends
 * to the MetricsObject.
 */
import type { SketchData } from "./sketch.ts";

/** Width of one series bucket. */
export const SERIES_BUCKET_MS = 10_000;
/** Buckets kept per policy: one hour. */
export const SERIES_BUCKETS = 360;
/** Width of one "right now" summary slice; the last NOW_SLICES make "right now". */
export const NOW_SLICE_MS = 60_000;
export const NOW_SLICES = 2;
/** Width of one "last hour" summary slice; the last HOUR_SLICES make the hour. */
export const HOUR_SLICE_MS = 600_000;
export const HOUR_SLICES = 6;
/** Most policies one isolate (and the MetricsObject) keeps traffic for. */
export const MAX_TRAFFIC_POLICIES = 128;
/** Most buckets, and minutes of limited keys, one policy holds in an isolate between sends (a send is at most 25 s apart); older ones are dropped. */
export const ISOLATE_PENDING_BUCKETS = 4;
export const ISOLATE_PENDING_MINUTES = 2;

/** Columns of a policy's series, in order. */
export const SERIES_COLUMNS = ["allowed", "limited", "near_limit", "shadow_would_limit"] as const;
/** Columns of the failure-mode series, in order. */
export const FAILURE_COLUMNS = ["failure_open", "failure_closed"] as const;

/** What a policy is: the rule's domain, Envoy stat key and limit name, its window, whether it is shadow. */
export interface PolicyRef {
  readonly domain: string;
  readonly descriptor: string;
  readonly limit: string;
  readonly window_seconds: number;
  readonly shadow: boolean;
  /** `tokens` for a token budget (docs/llm.md): its hits are tokens. Absent: requests. */
  readonly unit?: "tokens";
}

/** One policy's traffic in a batch: `[bucket, ...SERIES_COLUMNS]` rows and `[minute, summary]` pairs. */
export interface PolicyTraffic {
  readonly id: string;
  readonly ref: PolicyRef;
  readonly buckets: readonly (readonly number[])[];
  readonly minutes: readonly (readonly [number, SketchData])[];
}

/** What an isolate sends: plain data, cloned over RPC. */
export interface TrafficBatch {
  readonly policies: readonly PolicyTraffic[];
  /** `[bucket, open, closed]` rows. */
  readonly failures: readonly (readonly number[])[];
  /** Records left out because a bound was reached. */
  readonly dropped: number;
}

/**
 * The identity of a policy, shared by the recorder, the MetricsObject and rule health.
 *
 * @example
 * policyId("api", "user", "five"); // '["api","user","five"]'
 */
export function policyId(domain: string, descriptor: string, limit: string): string {
  return JSON.stringify([domain, descriptor, limit]);
}

/**
 * A request descriptor as the counters API's `descriptor` parameter takes it
 * (`,` `=` `%` escaped), so a key from the top table can be looked up as is.
 *
 * @example
 * descriptorText([{ key: "user", value: "a,b" }]); // "user=a%2Cb"
 */
export function descriptorText(entries: readonly { readonly key: string; readonly value: string }[]): string {
  return entries.map((e) => `${escaped(e.key)}=${escaped(e.value)}`).join(",");
}

// Every request refused is logged by its key: most keys hold nothing to escape and are kept as they are.
const ESCAPE = /[%,=]/;
const ESCAPE_ALL = /[%,=]/g;
const escapeChar = (c: string) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`;
const escaped = (text: string) => (ESCAPE.test(text) ? text.replace(ESCAPE_ALL, escapeChar) : text);
