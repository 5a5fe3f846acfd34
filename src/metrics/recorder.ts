/**
 * Per-isolate metric counts. Decisions add to an in-memory sum (no I/O on
 * the request path); the sum is sent to this isolate's metrics shard
 * (shards.ts), in one call, in the background (ctx.waitUntil), paced by
 * send-pace.ts: once the batch's first count is METRICS_FLUSH_MS old or it
 * holds SEND_EVERY_REQUESTS requests, and by a tail timer once the stream
 * stops, so no count waits longer than METRICS_FLUSH_MS (plus one RPC) to
 * be sent and an idle isolate sends nothing. One recorder per isolate, held
 * by the isolate's context (src/context/).
 */
import type { TrafficSampler } from "../advisor/sampler.ts";
import type { Env } from "../config.ts";
import type { Defer } from "../http/defer.ts";
import type { DescriptorOutcome, PolicyOutcome } from "../limiter/types.ts";
import { candidateRefusalSample, enforcementSample } from "./enforcement-samples.ts";
import { cutLabel, type LabelKey, labelKey, shownEntries } from "./labels.ts";
import { CONFIG_LOAD_ERROR, CONFIG_LOAD_SUCCESS, DOMAIN_NOT_FOUND, FAILURE_MODE_DECISIONS, GLOBAL_SHADOW_MODE, limitMetric } from "./names.ts";
import { OVERFLOW, SampleSums, type Sample } from "./samples.ts";
import { LIMIT_STATS, limitStats, type StatDelta } from "./stats.ts";
import { SendPace } from "./send-pace.ts";
import { metricsShardOf } from "./shards.ts";
import { TrafficLog } from "./traffic.ts";
import { settledStats, settlesLater } from "./settled.ts";
import type { SettledCharge } from "../limiter/reconcile.ts";
import type { ShardKey } from "../stored/shard-hash.ts";

/** Most series one isolate holds between sends; more fold into `_overflow`. */
export const ISOLATE_MAX_SERIES = 2_000;

const OVERFLOW_KEY = "\u0001overflow";

// Limited values (API keys, session cookies) are kept only as a short prefix and a keyed hash (docs/metrics.md).
function labelsOf(outcome: DescriptorOutcome, key: LabelKey): { shown: readonly { key: string; value: string }[]; descriptor: string } {
  const shown = shownEntries(outcome.descriptor, key);
  const node = outcome.match?.node;
  const descriptor = node?.detailedMetric ? cutLabel(shown.map((e) => `${e.key}_${e.value}`).join(".")) : (node?.statKey ?? "");
  return { shown, descriptor };
}

/**
 * One isolate's pending metric counts and their sends to the MetricsObject.
 *
 * @example
 * const metrics = new MetricsRecorder(env.METRICS, settings.metricsFlushMs, edge.shardKey);
 * metrics.recordOutcomes(result.descriptors ?? []);
 * metrics.scheduleFlush((p) => ctx.waitUntil(p));
 */
export class MetricsRecorder {
  private readonly pending = new SampleSums(ISOLATE_MAX_SERIES);
  // Per-limit stats are summed apart, by one string key, so a decision costs a
  // Map lookup and five additions; they become samples only when sent.
  private readonly limitSums = new Map<string, { labels: readonly (readonly [string, string])[]; delta: StatDelta }>();
  /** The dashboard's per-policy series and limited keys (docs/dashboard.md), sent with the counts. */
  private readonly traffic = new TrafficLog();
  private readonly metrics: Env["METRICS"] | undefined;
  private readonly pace: SendPace;
  /** The clock the dashboard's buckets are stamped with (the isolate's). */
  private readonly now: () => number;
  /** The metrics object this isolate sends to: its shard, drawn when the isolate starts. */
  readonly shard: string;
  /** The traffic sample's buffer (docs/advisor.md, "Sample"), sent with the counts; absent: no sample kept. */
  readonly sampler: TrafficSampler | undefined;
  /** The key limited values are shown with (labels.ts), derived once from the deployment's shard key. */
  private readonly labelKey: LabelKey;

  /**
   * `metrics` absent: an app using the middleware without a METRICS binding
   * keeps no metrics. `shardKey`: the deployment's (docs/deploy.md, "Shard
   * key"), which keys the hash limited values are shown with. `shard`: the
   * object to send to (default: a random isolate id's shard). `sampler`: the
   * traffic sample's buffer, whose rows ride with the sends (none without
   * `metrics`).
   */
  constructor(
    metrics: Env["METRICS"] | undefined,
    flushMs: number,
    shardKey: ShardKey,
    now: () => number = Date.now,
    shard: string = metricsShardOf(crypto.randomUUID()),
    sampler?: TrafficSampler,
  ) {
    this.metrics = metrics;
    this.labelKey = labelKey(shardKey);
    this.sampler = metrics === undefined ? undefined : sampler;
    this.pace = new SendPace(flushMs);
    this.now = now;
    this.shard = shard;
  }

  /**
   * Count the decision of every descriptor, with Envoy's per-limit stats.
   * Series are labelled by domain, descriptor (the Envoy stat key of the
   * matched rule, or the request's own `key_value` path when the rule sets
   * `detailed_metric`, cut to METRIC_LABEL_MAX_LENGTH) and limit name.
   *
   * @example
   * metrics.recordOutcomes(result.descriptors ?? []);
   */
  recordOutcomes(outcomes: readonly DescriptorOutcome[]): void {
    const now = this.now();
    for (const outcome of outcomes) {
      if (outcome.policies.length === 0 || outcome.match === undefined) continue;
      const node = outcome.match.node;
      const { shown, descriptor } = labelsOf(outcome, this.labelKey);
      const consumed = outcome.policies.every((p) => p.decision.allowed);
      for (const policy of outcome.policies) {
        // A refusal enforce_percent forwards is counted as a shadow one is (docs/metrics.md).
        const delta = limitStats(policy.decision, outcome.cost, consumed, policy.shadow || policy.enforcement === "not-enforced");
        // A charge the answer settles is counted once settled (recordSettled).
        if (!settlesLater(outcome, policy)) this.addLimit(outcome.domain, node.statKey, descriptor, policy, delta, shown, now);
        if (policy.enforcement !== undefined) this.pending.add(enforcementSample(outcome.domain, descriptor, policy));
      }
      const candidates = outcome.candidates;
      if (candidates === undefined) continue;
      // A candidate's own call took its hits only when all its windows allowed; it never blocks, so its refusals count as shadow ones.
      const taken = candidates.every((p) => p.decision.allowed);
      for (const policy of candidates) {
        this.addLimit(
          outcome.domain,
          node.statKey,
          descriptor,
          { ...policy, shadow: true },
          limitStats(policy.decision, outcome.cost, taken, true),
          shown,
          now,
        );
        if (!policy.decision.allowed) this.pending.add(candidateRefusalSample(outcome.domain, descriptor, policy));
      }
    }
  }

  /**
   * Count the charges settled once the answer ended (docs/llm.md, "Costs and
   * limits"): each policy's hits are the tokens it was charged. Returns
   * whether anything was counted (then a send is to be scheduled).
   *
   * @example
   * if (metrics.recordSettled(settledCharges(result, answered, usage))) metrics.scheduleFlush(defer);
   */
  recordSettled(charges: readonly SettledCharge[]): boolean {
    const now = this.now();
    let counted = false;
    for (const { outcome, charged } of charges) {
      if (outcome.match === undefined) continue;
      const { shown, descriptor } = labelsOf(outcome, this.labelKey);
      outcome.policies.forEach((policy, k) => {
        const tokens = charged[k];
        if (tokens === undefined || !settlesLater(outcome, policy)) return;
        this.addLimit(outcome.domain, outcome.match?.node.statKey ?? "", descriptor, policy, settledStats(policy, outcome.cost, tokens), shown, now);
        counted = true;
      });
    }
    return counted;
  }

  // One limit's stats into its series and the dashboard's traffic.
  private addLimit(
    domain: string,
    statKey: string,
    descriptor: string,
    policy: PolicyOutcome,
    delta: StatDelta,
    shown: readonly { readonly key: string; readonly value: string }[],
    now: number,
  ): void {
    this.traffic.record(domain, statKey, policy, delta, shown, now);
    let key = `${domain}\u0000${descriptor}\u0000${policy.name}`;
    let entry = this.limitSums.get(key);
    if (entry === undefined) {
      const full = this.limitSums.size >= ISOLATE_MAX_SERIES;
      if (full) key = OVERFLOW_KEY;
      entry = this.limitSums.get(key);
      if (entry === undefined) {
        const labels = full
          ? ([
              ["domain", OVERFLOW],
              ["descriptor", OVERFLOW],
              ["limit", OVERFLOW],
            ] as const)
          : ([
              ["domain", domain],
              ["descriptor", descriptor],
              ["limit", policy.name],
            ] as const);
        this.limitSums.set(key, (entry = { labels, delta: { total_hits: 0, over_limit: 0, near_limit: 0, within_limit: 0, shadow_mode: 0 } }));
      }
    }
    for (const stat of LIMIT_STATS) entry.delta[stat] += delta[stat];
  }

  /**
   * Count one descriptor sent for a domain the rules do not define.
   *
   * @example
   * metrics.recordDomainNotFound("unknown-domain");
   */
  recordDomainNotFound(domain: string): void {
    this.pending.add({ name: DOMAIN_NOT_FOUND, labels: [["domain", cutLabel(domain)]], value: 1 });
  }

  /**
   * Count a request SHADOW_MODE let through.
   *
   * @example
   * if (result.reason === "shadow") metrics.recordGlobalShadow();
   */
  recordGlobalShadow(): void {
    this.pending.add({ name: GLOBAL_SHADOW_MODE, labels: [], value: 1 });
  }

  /**
   * Count a decision FAILURE_MODE made.
   *
   * @example
   * metrics.recordFailureMode("open");
   */
  recordFailureMode(mode: "local" | "open" | "closed"): void {
    this.pending.add({ name: FAILURE_MODE_DECISIONS, labels: [["mode", mode]], value: 1 });
    // The dashboard's series keep open and closed; local decisions are counted above.
    if (mode !== "local") this.traffic.recordFailure(mode, this.now());
  }

  /**
   * Count a rules upload, accepted or rejected.
   *
   * @example
   * metrics.recordConfigLoad(result.ok);
   */
  recordConfigLoad(ok: boolean): void {
    this.pending.add({ name: ok ? CONFIG_LOAD_SUCCESS : CONFIG_LOAD_ERROR, labels: [], value: 1 });
  }

  /**
   * Called once per request: make sure pending counts get sent, at once
   * when the batch is due (send-pace.ts), else by a tail timer kept alive
   * by this request's own waitUntil.
   *
   * @example
   * metrics.scheduleFlush((p) => ctx.waitUntil(p));
   */
  scheduleFlush(defer: Defer): void {
    if (this.pending.size === 0 && this.limitSums.size === 0 && this.traffic.size === 0 && !this.sampler?.due()) return;
    // No metrics namespace: nothing is sent, so nothing waits; the counts are dropped at once.
    if (this.metrics === undefined) {
      defer(this.send());
      return;
    }
    // Wall time, not the injected clock: tests drive that one for the dashboard's buckets, and a batch must still go.
    const step = this.pace.request(Date.now());
    if (step === undefined) return;
    if ("send" in step) {
      defer(this.send());
      return;
    }
    defer(
      (async () => {
        await new Promise((resolve) => setTimeout(resolve, step.tailInMs));
        // Only the newest timer sends: the others' requests were followed by more.
        if (this.pace.tailDue(step.gen)) await this.send();
      })(),
    );
  }

  /**
   * Send this isolate's pending counts now (the metrics endpoint does, so its
   * own isolate is never stale), with every sampled row buffered. Never
   * throws: counts that could not be sent are kept for the next send.
   *
   * @example
   * await metrics.flushNow();
   */
  async flushNow(): Promise<void> {
    await this.send(true);
  }

  private async send(withSample = false): Promise<void> {
    // Counts added while this send is on the wire start the next batch.
    this.pace.sent();
    const batch = this.pending.take();
    for (const { labels, delta } of this.limitSums.values()) {
      for (const stat of LIMIT_STATS) batch.push({ name: limitMetric(stat), labels, value: delta[stat] });
    }
    this.limitSums.clear();
    // The dashboard's traffic is not resent after a failed send (its rings are a view, not counters to keep exact).
    const traffic = this.traffic.take();
    // Sampled rows ride with this send when due (docs/advisor.md, "Sample"): never a call of their own.
    const sample = this.sampler !== undefined && (withSample || this.sampler.due()) ? await this.sampler.take() : undefined;
    if ((batch.length === 0 && sample === undefined) || this.metrics === undefined) return;
    try {
      await this.metrics.getByName(this.shard).add(batch, traffic, undefined, sample);
    } catch (error) {
      for (const sample of batch) this.pending.add(sample as Sample);
      console.error(JSON.stringify({ event: "floodgate.metrics_send_failed", error: String(error) }));
    }
  }
}
