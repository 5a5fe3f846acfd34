/**
 * One isolate's buffer of sampled requests (docs/advisor.md, "Sample"). A
 * decision adds a row only when one of its descriptor keys is sampled
 * (key-sampling.ts); the rows wait in memory, bounded, and ride with a
 * metrics send (src/metrics/recorder.ts), so the sample costs no object
 * call of its own. Client-controlled values, and path segments no route
 * names (route-shape.ts), are digested when the rows are taken for a send,
 * off the request path.
 */
import type { ShardKey } from "../stored/shard-hash.ts";
import type { DescriptorOutcome, RateLimitResult } from "../limiter/types.ts";
import type { CompiledDomain, DomainDescriptors } from "../rules/types.ts";
import { digestValue } from "./digest.ts";
import { type EntryForm, entryForms } from "./entry-sources.ts";
import { ActiveKeys } from "./active-keys.ts";
import { keyHash } from "./key-sampling.ts";
import { type HeldPath, type HeldRoute, heldPath, heldRoute, sentPath, sentRoute } from "./route-shape.ts";
import { SAMPLE_ROW_VERSION, type SampleDecision, type SampleDescriptor, type SampleRow, type SampleSend } from "./sample-row.ts";
import type { SampleSettings } from "./sample-settings.ts";

/** Most rows one isolate holds between sends; past it the oldest are dropped. */
export const SAMPLE_BUFFER_ROWS = 1_000;

/**
 * Least age of the oldest buffered row before the rows ride with a send
 * (unless the buffer is half full, or the send is forced): one batched
 * insert a minute per isolate and domain, not one per metrics send.
 */
export const SAMPLE_HOLD_MS = 60_000;

/** What a face tells the sampler besides the result: the descriptors as mapped, and the route a domain matched. */
export interface SampleSource {
  readonly domains: readonly DomainDescriptors[];
  /** `METHOD path` as `domain`'s rules matched it. */
  route(domain: CompiledDomain): string;
}

interface HeldDescriptor extends Omit<SampleDescriptor, "entries"> {
  readonly entries: readonly { readonly key: string; readonly value: string; readonly form: EntryForm; readonly path?: HeldPath }[];
}

interface HeldRow extends Omit<SampleRow, "descriptors" | "route"> {
  readonly route: HeldRoute;
  readonly descriptors: readonly HeldDescriptor[];
}

/**
 * @example
 * const sampler = new TrafficSampler(sampleSettings(readSettings(env)), Date.now, edge.shardKey);
 * sampler.record(result, admission); // on the request path: a hash per descriptor
 * const send = await sampler.take(); // with the next metrics send
 */
export class TrafficSampler {
  readonly settings: SampleSettings;
  private readonly now: () => number;
  /** The deployment's shard key, from which the sampling hash's and the digests' keys are derived (key-sampling.ts, digest.ts). */
  private readonly shardKey: ShardKey;
  private held: HeldRow[] = [];
  /** The keys each domain has active in this isolate, which the rate follows (active-keys.ts). */
  private readonly active = new ActiveKeys();

  constructor(settings: SampleSettings, now: () => number, shardKey: ShardKey) {
    this.settings = settings;
    this.now = now;
    this.shardKey = shardKey;
  }

  /** Rows waiting for a send. */
  get size(): number {
    return this.held.length;
  }

  /** Whether the rows should ride with the next send (the oldest is SAMPLE_HOLD_MS old, or the buffer half full). */
  due(): boolean {
    const oldest = this.held[0];
    return oldest !== undefined && (this.held.length * 2 >= SAMPLE_BUFFER_ROWS || this.now() - oldest.t >= SAMPLE_HOLD_MS);
  }

  /**
   * Keep `result` (one row per domain) when one of its descriptor keys is
   * sampled. The decision's own outcomes are read, nothing is decided again.
   */
  record(result: RateLimitResult, source: SampleSource): void {
    const outcomes = result.descriptors;
    const { keyRate, maxRows } = this.settings;
    if (outcomes === undefined || keyRate <= 0 || maxRows <= 0) return;
    let sampled: boolean[] | undefined;
    const t = this.now();
    for (let i = 0; i < outcomes.length; i++) {
      const { domain, descriptor } = outcomes[i];
      // Every key while few are active; thinned by the keyed hash as the count grows (docs/advisor.md, "How requests are chosen: whole keys").
      if (!this.active.sampled(domain, keyHash(domain, descriptor, this.shardKey), t, keyRate)) continue;
      sampled ??= outcomes.map(() => false);
      sampled[i] = true;
    }
    if (sampled === undefined) return;
    const decision = decisionOf(result);
    for (const mapped of source.domains) {
      const name = mapped.domain.domain;
      const indexes = outcomes.flatMap((outcome, i) => (outcome.domain === name ? [i] : []));
      if (!indexes.some((i) => sampled[i])) continue;
      const first = outcomes[indexes[0]];
      this.held.push({
        v: SAMPLE_ROW_VERSION,
        t,
        domain: name,
        route: heldRoute(mapped.domain, source.route(mapped.domain)),
        cost: first.cost,
        decision,
        descriptors: indexes.map((i) => held(outcomes[i], sampled[i], mapped.domain)),
      });
    }
    // Oldest first (docs/advisor.md, "Sample"): a full buffer keeps the newest rows.
    if (this.held.length > SAMPLE_BUFFER_ROWS) this.held.splice(0, this.held.length - SAMPLE_BUFFER_ROWS);
  }

  /**
   * Every buffered row as sent, client-controlled values digested; undefined
   * when none is buffered. The buffer is empty after.
   */
  async take(): Promise<SampleSend | undefined> {
    if (this.held.length === 0) return undefined;
    const rows = this.held;
    this.held = [];
    const sentAt = this.now();
    const digests = new Map<string, Promise<string>>();
    const digestOf = (value: string) => {
      let digest = digests.get(value);
      if (digest === undefined) digests.set(value, (digest = digestValue(value, this.shardKey)));
      return digest;
    };
    const sent = await Promise.all(
      rows.map(async (row) => ({
        ...row,
        route: await sentRoute(row.route, digestOf),
        descriptors: await Promise.all(
          row.descriptors.map(async (d) => ({
            entries: await Promise.all(d.entries.map(async (e) => ({ key: e.key, value: await sentValue(e, digestOf) }))),
            sampled: d.sampled,
            limit: d.limit,
            allowed: d.allowed,
          })),
        ),
      })),
    );
    return { rows: sent, maxRows: this.settings.maxRows, retentionMs: this.settings.retentionMs, sentAt };
  }
}

/** The request's decision as the gateway tags it (docs/advisor.md, "Sample"). */
/**
 * The row's `decision`: the tag the gateway answered with (docs/advisor.md,
 * "What a row holds"); `not-enforced` and `soft` stay so under
 * `FAILURE_MODE=local`, as their `X-RateLimit-Decision` does.
 *
 * @example
 * decisionOf({ ...result, reason: "soft" }); // "soft"
 */
export function decisionOf(result: RateLimitResult): SampleDecision {
  if (result.reason === "not_enforced") return "not-enforced";
  if (result.reason === "soft") return "soft";
  if (result.decidedLocally) return "local";
  if (result.reason === "shadow") return "shadow";
  return result.allowed && result.reason !== "queued" ? "allowed" : "refused";
}

// The limit that decided a descriptor: the first that refused it, else the first that applied.
function held(outcome: DescriptorOutcome, sampled: boolean, domain: CompiledDomain): HeldDescriptor {
  const policy = outcome.policies.find((p) => !p.decision.allowed) ?? outcome.policies[0];
  const forms = entryForms(domain, outcome.descriptor);
  return {
    entries: outcome.descriptor.map((entry, i) => {
      const form = forms[i] ?? "digest";
      return { key: entry.key, value: entry.value, form, ...(form === "path" ? { path: heldPath(domain, entry.value) } : {}) };
    }),
    sampled,
    limit: policy?.name ?? null,
    allowed: policy?.decision.allowed ?? true,
  };
}

// A value as its row stores it (docs/advisor.md, "Values are digests").
async function sentValue(entry: HeldDescriptor["entries"][number], digestOf: (value: string) => Promise<string>): Promise<string> {
  if (entry.form === "raw") return entry.value;
  if (entry.path !== undefined) return sentPath(entry.path, digestOf);
  return digestOf(entry.value);
}
