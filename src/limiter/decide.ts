/**
 * The decision engine: descriptors in, one RateLimitResult out. It looks up
 * limits in the compiled tree, routes each counter to the object that owns
 * it (one RPC per object, all in parallel) and folds the answers.
 */
import { counterKey, objectName } from "../durable/placement.ts";
import type { CounterCall, CounterVerdict, LimitCall } from "../durable/protocol.ts";
import type { EdgeRuntime } from "../edge/runtime.ts";
import { applyReplaces, matchDescriptor } from "../rules/index.ts";
import type { CompiledLimit, DescriptorEntry, DescriptorMatch, DomainDescriptors } from "../rules/types.ts";
import { summarize } from "./summarize.ts";
import type { DescriptorOutcome, PolicyOutcome, RateLimitResult } from "./types.ts";

/** Options for one decision. */
export interface DecideOptions {
  /** Hits this request adds (Envoy `hits_addend`); default 1. */
  readonly cost?: number;
  /** Milliseconds to wait for counters before `onTimeout` decides. */
  readonly timeoutMs: number;
  /** SHADOW_MODE: count everything, block nothing. */
  readonly shadowAll?: boolean;
  /** Where background work goes (ctx.waitUntil); pre-counting syncs need it. Without it, precount limits are decided strongly. */
  readonly defer?: (work: Promise<unknown>) => void;
  /**
   * Honour `on_limit: "delay"` and `"queue"` (the gateway does). Without it
   * (the decision API) every limit answers plainly, as Envoy's would.
   */
  readonly onLimit?: boolean;
}

/** Thrown when a counter object fails or does not answer in time. */
export class CounterUnavailableError extends Error {}

interface Pending {
  readonly call: CounterCall;
  readonly outcome: number;
  readonly limits: readonly CompiledLimit[];
  readonly shadow: boolean;
  /** Delay and queue calls skip the block cache and pre-counting (their answer is not a plain 429). */
  readonly bypass: boolean;
  readonly syncMs?: number;
}

/**
 * Decide a request against every domain it maps to. Rejects with
 * CounterUnavailableError when any counter cannot be reached within
 * `timeoutMs`; the caller applies FAILURE_MODE.
 *
 * @example
 * const result = await decide(isolate.edge, [{ domain, descriptors: [[{ key: "remote_address", value: ip }]] }], { timeoutMs: 1000 });
 * result.allowed; // false once the IP is over its limit
 */
export async function decide(edge: EdgeRuntime, requests: readonly DomainDescriptors[], options: DecideOptions): Promise<RateLimitResult> {
  const outcomes = await decideEach(edge, requests, options);
  const policies: PolicyOutcome[] = [];
  for (const outcome of outcomes) for (const policy of outcome.policies) policies.push(policy);
  const result = summarize(policies, options.shadowAll);
  return outcomes.length === 0 ? result : { ...result, descriptors: outcomes };
}

/**
 * Decide every descriptor and report each one on its own, in request order
 * (domain by domain): what it matched, and each enforced limit's decision.
 * The Envoy API answers one status per descriptor from this.
 *
 * @example
 * const [outcome] = await decideEach(isolate.edge, [{ domain, descriptors: [[{ key: "k", value: "v" }]], costs: [0] }], { timeoutMs: 1000 });
 * outcome.policies[0]?.decision.remaining; // read without consuming
 */
export async function decideEach(edge: EdgeRuntime, requests: readonly DomainDescriptors[], options: DecideOptions): Promise<DescriptorOutcome[]> {
  const defaultCost = options.cost ?? 1;
  const outcomes: {
    domain: string; descriptor: readonly DescriptorEntry[]; cost: number; match?: DescriptorMatch; policies: PolicyOutcome[];
    counter?: { object: string; call: CounterCall };
  }[] = [];
  const byObject = new Map<string, Pending[]>();
  for (const { domain, descriptors, costs, overrides } of requests) {
    const matches = descriptors.map((descriptor, i) => overrides?.[i] ?? matchDescriptor(domain, descriptor));
    // Unlimited matches stay in: their `replaces` still drop other limits.
    const kept = applyReplaces(matches);
    for (let i = 0; i < descriptors.length; i++) {
      const descriptor = descriptors[i];
      const cost = costs?.[i] ?? defaultCost;
      const index = outcomes.push({ domain: domain.domain, descriptor, cost, match: matches[i], policies: [] }) - 1;
      const limits = kept[i];
      if (limits.length === 0) continue;
      const key = counterKey(domain.domain, descriptor);
      const shadow = (options.shadowAll ?? false) || (matches[i]?.shadowMode ?? false);
      // Shadow limits never block, so they never delay or queue either.
      const honour = options.onLimit === true && !shadow;
      const call = counterCall(key, limits, cost, honour);
      const name = objectName(domain.domain, domain.placement, domain.shards, key);
      outcomes[index].counter = { object: name, call };
      let list = byObject.get(name);
      if (list === undefined) byObject.set(name, (list = []));
      const bypass = honour && limits.some((limit) => limit.onLimit === "delay" || limit.onLimit === "queue");
      const syncMs = options.defer && !bypass ? precountSyncMs(limits) : undefined;
      list.push({ call, outcome: index, limits, shadow, bypass, syncMs });
    }
  }
  if (byObject.size === 0) return outcomes;
  const defer = options.defer ?? (() => undefined);
  const lists = [...byObject.values()];
  // A request answered entirely in this isolate (cached blocks, pre-counted budget) needs no object, and so no timeout.
  const local = lists.length === 1 ? edge.localVerdicts(lists[0], defer) : undefined;
  const answers = local !== undefined ? [local] : await withTimeout(
    Promise.all([...byObject].map(([name, pending]) => edge.decideCalls(name, pending, defer))),
    options.timeoutMs,
  );
  for (let i = 0; i < lists.length; i++) {
    const pending = lists[i];
    for (let j = 0; j < pending.length; j++) {
      const p = pending[j];
      const outcome = outcomes[p.outcome];
      const verdict = answers[i][j] as CounterVerdict;
      for (let k = 0; k < p.limits.length; k++) {
        const limit = p.limits[k];
        // Optional fields set only when present (no spreads: this runs for every limit of every request).
        const policy: { -readonly [F in keyof PolicyOutcome]: PolicyOutcome[F] } = {
          domain: outcome.domain,
          descriptor: outcome.descriptor,
          name: limit.name,
          windowMs: limit.windowMs,
          shadow: outcome.match?.shadowMode ?? false,
          decision: verdict.decisions[k],
          rule: limit,
        };
        if (p.bypass && (limit.onLimit === "delay" || limit.onLimit === "queue")) policy.onLimit = limit.onLimit;
        if (verdict.delayMs) policy.delayMs = verdict.delayMs;
        outcome.policies.push(policy);
      }
    }
  }
  return outcomes;
}

/**
 * The call for one descriptor. With `on_limit` honoured and a `delay` limit
 * among its windows, it reserves: the delay windows may admit the request at
 * a future slot, no further away than the smallest of their `max_delay_ms`.
 */
function counterCall(key: string, limits: readonly CompiledLimit[], cost: number, honour: boolean): CounterCall {
  const delays = honour ? limits.filter((limit) => limit.onLimit === "delay") : [];
  if (delays.length === 0) return { key, limits: limitCalls(limits), cost };
  return {
    key,
    limits: limits.map((limit) => (limit.onLimit === "delay" ? { ...toLimitCall(limit), reserve: true } : toLimitCall(limit))),
    cost,
    mode: "reserve",
    maxDelayMs: Math.min(...delays.map((limit) => limit.maxDelayMs ?? 0)),
  };
}

/** The smallest `sync_ms` when every limit is pre-counted; otherwise undefined (strong mode). */
function precountSyncMs(limits: readonly CompiledLimit[]): number | undefined {
  let syncMs: number | undefined;
  for (const limit of limits) {
    if (limit.precount === undefined) return undefined;
    syncMs = Math.min(syncMs ?? Infinity, limit.precount.syncMs);
  }
  return syncMs;
}

// One LimitCall per compiled limit, made once: no allocation per request
// but the array, and the calls of a batch share their limits, which the
// RPC's structured clone sends once and refers back to for the rest.
const limitCallOf = new WeakMap<CompiledLimit, LimitCall>();

function limitCalls(limits: readonly CompiledLimit[]): LimitCall[] {
  return limits.map((limit) => {
    let call = limitCallOf.get(limit);
    if (call === undefined) limitCallOf.set(limit, (call = toLimitCall(limit)));
    return call;
  });
}

/**
 * A compiled limit as the counter objects take it (plain data for RPC).
 *
 * @example
 * env.COUNTERS.getByName(name).peek({ key, limits: limits.map(toLimitCall), cost: 0 });
 */
export function toLimitCall(limit: CompiledLimit): LimitCall {
  return { id: limit.id, algorithm: limit.algorithm, limit: limit.limit, windowMs: limit.windowMs, burst: limit.burst };
}

async function withTimeout<T>(work: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CounterUnavailableError(`no answer from counters within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([work.catch((error: unknown) => { throw new CounterUnavailableError(String(error)); }), deadline]);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}
