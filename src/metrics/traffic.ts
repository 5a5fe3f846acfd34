/**
 * The dashboard's traffic as one isolate sees it between two sends: per
 * policy (domain + rule + limit), hits per 10-second bucket (allowed,
 * limited, near the limit, over a shadow limit) and a heavy-hitters summary
 * of the limited keys per minute; failure-mode decisions per bucket. Bounded
 * by the constants below; what does not fit is counted as `dropped`. The
 * MetricsObject merges batches into its rings (traffic-store.ts);
 * docs/dashboard.md describes the figures.
 */
import type { StatDelta } from "./stats.ts";
import { HeavyHitters, boundedKey, type SketchData } from "./sketch.ts";

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
  const escaped = (text: string) => text.replace(/[%,=]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return entries.map((e) => `${escaped(e.key)}=${escaped(e.value)}`).join(",");
}

interface Pending {
  readonly id: string;
  readonly ref: PolicyRef;
  readonly buckets: Map<number, number[]>;
  readonly minutes: Map<number, HeavyHitters>;
}

/**
 * One isolate's pending dashboard traffic.
 *
 * @example
 * const log = new TrafficLog();
 * log.record("api", "user", { name: "five", windowMs: 60_000, shadow: false }, delta, [{ key: "user", value: "alice" }], Date.now());
 * const batch = log.take();
 */
export class TrafficLog {
  private policies = new Map<string, Pending>();
  private failures = new Map<number, number[]>();
  private dropped = 0;

  /** Whether anything waits to be sent. */
  get size(): number {
    return this.policies.size + this.failures.size;
  }

  /** Count one policy's share of a decision made at `now`. */
  record(
    domain: string,
    descriptor: string,
    policy: { readonly name: string; readonly windowMs: number; readonly shadow: boolean },
    delta: StatDelta,
    entries: readonly { readonly key: string; readonly value: string }[],
    now: number,
  ): void {
    // A plain joined key on the hot path; the JSON id is made once per policy.
    const key = `${domain}\u0000${descriptor}\u0000${policy.name}`;
    let pending = this.policies.get(key);
    if (pending === undefined) {
      if (this.policies.size >= MAX_TRAFFIC_POLICIES) return void (this.dropped += 1);
      const ref = { domain, descriptor, limit: policy.name, window_seconds: policy.windowMs / 1000, shadow: policy.shadow };
      this.policies.set(key, (pending = { id: policyId(domain, descriptor, policy.name), ref, buckets: new Map(), minutes: new Map() }));
    }
    const row = rowOf(pending.buckets, Math.floor(now / SERIES_BUCKET_MS), SERIES_COLUMNS.length);
    row[0] += delta.within_limit;
    row[1] += delta.over_limit - delta.shadow_mode;
    row[2] += delta.near_limit;
    row[3] += delta.shadow_mode;
    if (delta.over_limit > 0) {
      const minute = Math.floor(now / NOW_SLICE_MS);
      let sketch = pending.minutes.get(minute);
      if (sketch === undefined) {
        pending.minutes.set(minute, (sketch = new HeavyHitters()));
        dropOldest(pending.minutes, ISOLATE_PENDING_MINUTES);
      }
      sketch.add(boundedKey(descriptorText(entries)), delta.over_limit);
    }
  }

  /** Count one FAILURE_MODE decision made at `now`. */
  recordFailure(mode: "open" | "closed", now: number): void {
    rowOf(this.failures, Math.floor(now / SERIES_BUCKET_MS), FAILURE_COLUMNS.length)[mode === "open" ? 0 : 1] += 1;
  }

  /** Everything pending, as a batch; the log is left empty. */
  take(): TrafficBatch {
    const policies = [...this.policies.values()].map((p) => ({
      id: p.id,
      ref: p.ref,
      buckets: [...p.buckets].map(([bucket, row]) => [bucket, ...row]),
      minutes: [...p.minutes].map(([minute, sketch]) => [minute, sketch.toData()] as const),
    }));
    const batch = { policies, failures: [...this.failures].map(([bucket, row]) => [bucket, ...row]), dropped: this.dropped };
    this.policies = new Map();
    this.failures = new Map();
    this.dropped = 0;
    return batch;
  }
}

function rowOf(rows: Map<number, number[]>, bucket: number, columns: number): number[] {
  let row = rows.get(bucket);
  if (row === undefined) {
    rows.set(bucket, (row = new Array(columns).fill(0)));
    dropOldest(rows, ISOLATE_PENDING_BUCKETS);
  }
  return row;
}

// Periods arrive in time order, so the first key of a Map is the oldest.
function dropOldest(periods: Map<number, unknown>, most: number): void {
  if (periods.size > most) periods.delete(periods.keys().next().value as number);
}
