/**
 * The decision engine: descriptors in, one RateLimitResult out. It plans a
 * call per counter, grouped by the object that owns it (plan.ts), has the
 * edge answer them (one RPC per object, all in parallel, unless the isolate
 * can answer alone), and folds the verdicts (fold.ts, summarize.ts).
 */
import type { CounterVerdict, SlotLease } from "../stored/wire-calls.ts";
import type { Region } from "../durable/counters/regions.ts";
import type { EdgeCall, EdgeRuntime } from "../isolate/runtime.ts";
import type { Defer } from "../http/defer.ts";
import { boundedDescriptors } from "../rules/index.ts";
import type { DomainDescriptors } from "../rules/types.ts";
import { fold } from "./fold.ts";
import { owedToHome } from "./owed-home.ts";
import { plan } from "./plan.ts";
import { summarize } from "./summarize.ts";
import { CounterUnavailableError, withTimeout } from "./timeout.ts";
import type { DescriptorOutcome, PolicyOutcome, RateLimitResult } from "./types.ts";

export { toLimitCall } from "./calls.ts";
export { CounterUnavailableError, type Unanswered } from "./timeout.ts";

/** Options for one decision. */
export interface DecideOptions {
  /** Hits this request adds (Envoy `hits_addend`); default 1. */
  readonly cost?: number;
  /** Milliseconds to wait for counters before `onTimeout` decides. */
  readonly timeoutMs: number;
  /** SHADOW_MODE: count everything, block nothing. */
  readonly shadowAll?: boolean;
  /** Where background work goes (ctx.waitUntil); pre-counting syncs need it. Without it, precount limits are decided strongly. */
  readonly defer?: Defer;
  /**
   * Honour `on_limit: "delay"` and `"queue"` (the gateway does). Without it
   * (the decision API) every limit answers plainly, as Envoy's would.
   */
  readonly onLimit?: boolean;
  /** The slot this request takes on concurrency limits (see PlanOptions); the caller releases it. */
  readonly slot?: SlotLease;
  /** The region the request arrived in, for limits with `scope: "region"` (see PlanOptions). Default `local`. */
  readonly region?: Region;
}

/**
 * Decide a request against every domain it maps to. Rejects with
 * CounterUnavailableError when any counter cannot be reached within
 * `timeoutMs`; the admission pipeline (src/admission/) applies FAILURE_MODE.
 *
 * @example
 * const result = await decide(isolate.edge, [{ domain, descriptors: [[{ key: "remote_address", value: ip }]] }], { timeoutMs: 1000 });
 * result.allowed; // false once the IP is over its limit
 */
export async function decide(
  edge: EdgeRuntime,
  requests: readonly DomainDescriptors[],
  options: DecideOptions,
  countLocally = false,
): Promise<RateLimitResult> {
  return resultOf(await descriptorOutcomes(edge, requests, options, countLocally), options.shadowAll);
}

/**
 * The RateLimitResult of decided outcomes: every policy summarized, the outcomes kept.
 *
 * @example
 * const result = resultOf(outcomes, false); // result.allowed
 */
export function resultOf(outcomes: DescriptorOutcome[], shadowAll: boolean | undefined): RateLimitResult {
  const policies: PolicyOutcome[] = [];
  for (const outcome of outcomes) for (const policy of outcome.policies) policies.push(policy);
  const result = summarize(policies, shadowAll);
  return outcomes.length === 0 ? result : { ...result, descriptors: outcomes };
}

/**
 * Decide every descriptor and report each one on its own, in request order
 * (domain by domain): what it matched, and each enforced limit's decision.
 * `decide` keeps them in its result (`descriptors`), where the Envoy API reads one status per descriptor.
 *
 * @example
 * const [outcome] = await descriptorOutcomes(isolate.edge, [{ domain, descriptors: [[{ key: "k", value: "v" }]], costs: [0] }], { timeoutMs: 1000 });
 * outcome.policies[0]?.decision.remaining; // read without consuming
 */
export async function descriptorOutcomes(
  edge: EdgeRuntime,
  requests: readonly DomainDescriptors[],
  options: DecideOptions,
  countLocally = false,
): Promise<DescriptorOutcome[]> {
  // Long values keyed by their digest before matching, so counters, metrics and the dashboard see one key (docs/rules.md).
  const bounded = boundedDescriptors(requests);
  const planned = plan(bounded instanceof Promise ? await bounded : bounded, options, options.defer !== undefined, edge.shardKey, edge.now(), edge.warm);
  const { outcomes } = planned;
  // Debts are rare (only after local decisions): the plan is looked at again only while some are owed.
  const byObject = edge.debts.size === 0 ? planned.byObject : owedToHome(planned, (home, call) => edge.debts.owes(home, call, edge.now()));
  if (byObject.size === 0) return outcomes;
  const defer = options.defer ?? (() => undefined);
  const groups = [...byObject.values()];
  // A request answered entirely in this isolate (cached blocks, pre-counted budget) needs no object, and so no timeout.
  const local = groups.length === 1 ? edge.localVerdicts(groups[0], defer) : undefined;
  let answers: CounterVerdict[][];
  if (local !== undefined) answers = [local];
  else {
    try {
      answers = await objectAnswers(edge, byObject, defer, options.timeoutMs);
    } catch (error) {
      // The failure policy (src/admission/) may decide these calls in the isolate: it gets what was planned.
      if (error instanceof CounterUnavailableError) error.unanswered = { outcomes, groups };
      throw error;
    }
    if (countLocally) {
      const now = edge.now();
      const names = [...byObject.keys()];
      for (let g = 0; g < answers.length; g++) for (let i = 0; i < answers[g].length; i++) edge.local.count(names[g], groups[g][i].call, answers[g][i], now);
    }
  }
  fold(outcomes, groups, answers);
  return outcomes;
}

// One RPC per object, all in parallel, within the decision timeout.
async function objectAnswers(edge: EdgeRuntime, byObject: Map<string, EdgeCall[]>, defer: Defer, timeoutMs: number): Promise<CounterVerdict[][]> {
  if (byObject.size === 1) {
    const [[name, calls]] = byObject;
    return [await withTimeout(edge.decideCalls(name, calls, defer), timeoutMs)];
  }
  return withTimeout(Promise.all([...byObject].map(([name, calls]) => edge.decideCalls(name, calls, defer))), timeoutMs);
}
