/**
 * The decision engine: descriptors in, one RateLimitResult out. It looks up
 * limits in the compiled tree, routes each counter to the object that owns
 * it (one RPC per object, all in parallel) and folds the answers.
 */
import { counterKey, objectName } from "../durable/placement.ts";
import type { CounterCall, CounterVerdict, LimitCall } from "../durable/protocol.ts";
import type { Env } from "../env.ts";
import { applyReplaces, matchDescriptor } from "../rules/index.ts";
import type { CompiledDomain, CompiledLimit, DescriptorEntry, DescriptorMatch } from "../rules/types.ts";
import { summarize } from "./summarize.ts";
import type { PolicyOutcome, RateLimitResult } from "./types.ts";

/** Descriptors of one request for one domain. */
export interface DomainDescriptors {
  readonly domain: CompiledDomain;
  readonly descriptors: readonly (readonly DescriptorEntry[])[];
}

/** Options for one decision. */
export interface DecideOptions {
  /** Hits this request adds (Envoy `hits_addend`); default 1. */
  readonly cost?: number;
  /** Milliseconds to wait for counters before `onTimeout` decides. */
  readonly timeoutMs: number;
}

/** Thrown when a counter object fails or does not answer in time. */
export class CounterUnavailableError extends Error {}

interface Pending {
  readonly call: CounterCall;
  readonly domain: string;
  readonly descriptor: readonly DescriptorEntry[];
  readonly limits: readonly CompiledLimit[];
  readonly shadow: boolean;
}

/**
 * Decide a request against every domain it maps to. Rejects with
 * CounterUnavailableError when any counter cannot be reached within
 * `timeoutMs`; the caller applies FAILURE_MODE.
 *
 * @example
 * const result = await decide(env, [{ domain, descriptors: [[{ key: "remote_address", value: ip }]] }], { timeoutMs: 1000 });
 * result.allowed; // false once the IP is over its limit
 */
export async function decide(env: Env, requests: readonly DomainDescriptors[], options: DecideOptions): Promise<RateLimitResult> {
  const cost = options.cost ?? 1;
  const byObject = new Map<string, Pending[]>();
  for (const { domain, descriptors } of requests) {
    // Unlimited matches stay in: their `replaces` still drop other limits.
    const matched: { descriptor: readonly DescriptorEntry[]; match: DescriptorMatch }[] = [];
    for (const descriptor of descriptors) {
      const match = matchDescriptor(domain, descriptor);
      if (match) matched.push({ descriptor, match });
    }
    const kept = applyReplaces(matched.map((m) => m.match));
    matched.forEach(({ descriptor, match }, i) => {
      const limits = kept[i];
      if (limits.length === 0) return;
      const key = counterKey(domain.domain, descriptor);
      const call: CounterCall = { key, limits: limits.map(toLimitCall), cost };
      const name = objectName(domain.domain, domain.placement, domain.shards, key);
      const list = byObject.get(name) ?? [];
      list.push({ call, domain: domain.domain, descriptor, limits, shadow: match.shadowMode });
      byObject.set(name, list);
    });
  }
  if (byObject.size === 0) return summarize([]);
  const answers = await withTimeout(
    Promise.all([...byObject].map(([name, pending]) => env.COUNTERS.getByName(name).decide(pending.map((p) => p.call)))),
    options.timeoutMs,
  );
  const outcomes: PolicyOutcome[] = [];
  [...byObject.values()].forEach((pending, i) => {
    pending.forEach((p, j) => outcomes.push(...toOutcomes(p, answers[i][j] as CounterVerdict)));
  });
  return summarize(outcomes);
}

function toLimitCall(limit: CompiledLimit): LimitCall {
  return { id: limit.id, algorithm: limit.algorithm, limit: limit.limit, windowMs: limit.windowMs, burst: limit.burst };
}

function toOutcomes(pending: Pending, verdict: CounterVerdict): PolicyOutcome[] {
  return pending.limits.map((limit, i) => ({
    domain: pending.domain,
    descriptor: pending.descriptor,
    name: limit.name,
    windowMs: limit.windowMs,
    shadow: pending.shadow,
    decision: verdict.decisions[i],
  }));
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
