/**
 * The dashboard's traffic as one isolate sees it between two sends: per
 * policy (domain + rule + limit), hits per 10-second bucket (allowed,
 * limited, near the limit, over a shadow limit) and a heavy-hitters summary
 * of the limited keys per minute; failure-mode decisions per bucket. Bounded
 * by the constants of traffic-shape.ts; what does not fit is counted as `dropped`. The
 * MetricsObject merges batches into its rings (traffic-store.ts);
 * docs/dashboard.md describes the figures.
 */
import { HeavyHitters, boundedKey } from "./sketch.ts";
import type { StatDelta } from "./stats.ts";
import {
  FAILURE_COLUMNS,
  ISOLATE_PENDING_BUCKETS,
  ISOLATE_PENDING_MINUTES,
  MAX_TRAFFIC_POLICIES,
  NOW_SLICE_MS,
  type PolicyRef,
  SERIES_BUCKET_MS,
  SERIES_COLUMNS,
  type TrafficBatch,
  descriptorText,
  policyId,
} from "./traffic-shape.ts";

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
    policy: { readonly name: string; readonly windowMs: number; readonly shadow: boolean; readonly quotaUnit?: string },
    delta: StatDelta,
    entries: readonly { readonly key: string; readonly value: string }[],
    now: number,
  ): void {
    // A plain joined key on the hot path; the JSON id is made once per policy.
    const key = `${domain}\u0000${descriptor}\u0000${policy.name}`;
    let pending = this.policies.get(key);
    if (pending === undefined) {
      if (this.policies.size >= MAX_TRAFFIC_POLICIES) return void (this.dropped += 1);
      const ref: PolicyRef = { domain, descriptor, limit: policy.name, window_seconds: policy.windowMs / 1000, shadow: policy.shadow };
      // A token budget's hits are tokens (docs/llm.md): the dashboard shows them as such.
      if (policy.quotaUnit === "tokens") Object.assign(ref, { unit: "tokens" });
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
