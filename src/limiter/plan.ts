/**
 * Planning a decision: each descriptor matched against the rules (and
 * `replaces` applied), its counter placed in the object that owns it, and
 * its call made, with what the edge may do with it. Calls are grouped by
 * object, so each object gets one RPC.
 */
import { counterKey, objectName, type ShardKey } from "../durable/counters/placement.ts";
import { inRegion, LOCAL_REGION, type Region } from "../durable/counters/regions.ts";
import type { SlotLease } from "../stored/wire-calls.ts";
import type { EdgeCall } from "../isolate/runtime.ts";
import { type WarmHints, warmId } from "../isolate/warm-hints.ts";
import { limitFacts } from "../rules/facts.ts";
import { overrideMatch } from "../overrides/lookup.ts";
import { applyReplaces, matchDescriptor } from "../rules/index.ts";
import type { CompiledLimit, DomainDescriptors } from "../rules/types.ts";
import type { CounterCall } from "../stored/wire-calls.ts";
import { counterCall } from "./calls.ts";
import { enforcementBucket } from "./enforcement.ts";
import { candidateCall, candidatesOf } from "./candidates.ts";
import type { DescriptorOutcome, PolicyOutcome } from "./types.ts";

/** What planning needs of the decision's options. */
export interface PlanOptions {
  /** Hits this request adds (Envoy `hits_addend`); default 1. */
  readonly cost?: number;
  /** SHADOW_MODE: count everything, block nothing. */
  readonly shadowAll?: boolean;
  /** Honour `on_limit: "delay"` and `"queue"`. */
  readonly onLimit?: boolean;
  /**
   * The slot this request takes on concurrency limits (docs/concurrency.md).
   * Without it they are left out: only a caller that releases the slot
   * when the response ends may take one.
   */
  readonly slot?: SlotLease;
  /**
   * The region the request arrived in (docs/placement.md): limits with
   * `scope: "region"` count in that region's copy of their counter.
   * Default `local`, the region of requests with no location.
   */
  readonly region?: Region;
}

/** A descriptor's outcome while it is being decided: planning sets its counter, `fold` its policies. */
export interface DraftOutcome extends DescriptorOutcome {
  readonly policies: PolicyOutcome[];
  candidates?: PolicyOutcome[];
  counter?: DescriptorOutcome["counter"];
  chargedAt?: number;
}

/** One planned counter call: what the edge needs, and what folding its verdict needs. */
export interface PlannedCall extends EdgeCall {
  /** Index of the descriptor's outcome. */
  readonly outcome: number;
  readonly limits: readonly CompiledLimit[];
  /** Whether the limits' `on_limit` is honoured (the caller asks for it and the descriptor is not in shadow mode). */
  readonly honoured: boolean;
  /** The call counts candidate limits (src/limiter/candidates.ts): its verdict is folded into the outcome's `candidates`. */
  readonly candidate?: true;
  /** Set when a limit has `enforce_percent`: the key's share bucket, 0–99 (src/limiter/enforcement.ts). */
  readonly enforcementBucket?: number;
}

/** Every descriptor's outcome, in request order, and the calls to make, per object name. */
export interface Plan {
  readonly outcomes: DraftOutcome[];
  readonly byObject: Map<string, PlannedCall[]>;
}

/**
 * Plan the decision of `requests`. With `precount` (there is somewhere to
 * run background syncs), pre-counted limits are planned for the edge to
 * decide locally. Counters are placed with `shardKey` (the edge's). An
 * override in force at `now` replaces the rules' match of its descriptor
 * (src/overrides/, docs/admin-api.md "Overrides").
 *
 * @example
 * const { outcomes, byObject } = plan([{ domain, descriptors: [[{ key: "k", value: "v" }]] }], {}, false, edge.shardKey);
 */
export function plan(
  requests: readonly DomainDescriptors[],
  options: PlanOptions,
  precount: boolean,
  shardKey: ShardKey,
  now = Date.now(),
  warm?: WarmHints,
): Plan {
  const defaultCost = options.cost ?? 1;
  const outcomes: DraftOutcome[] = [];
  const byObject = new Map<string, PlannedCall[]>();
  for (const { domain, descriptors, costs, overrides, quotaUnit, costFromResponse } of requests) {
    const matches = descriptors.map((descriptor, i) => overrides?.[i] ?? overrideMatch(domain, descriptor, now) ?? matchDescriptor(domain, descriptor));
    // Unlimited matches stay in: their `replaces` still drop other limits.
    const kept = applyReplaces(matches);
    for (let i = 0; i < descriptors.length; i++) {
      const descriptor = descriptors[i];
      const cost = costs?.[i] ?? defaultCost;
      const draft: DraftOutcome = { domain: domain.domain, descriptor, cost, match: matches[i], policies: [] };
      if (quotaUnit !== undefined || costFromResponse !== undefined) Object.assign(draft, { quotaUnit, costFromResponse });
      const index = outcomes.push(draft) - 1;
      // A node's facts are compiled with it; limits `replaces` filtered are worked out here (rules/facts.ts).
      const node = matches[i]?.node;
      const facts = node?.facts !== undefined && kept[i] === node.limits ? node.facts : limitFacts(kept[i]);
      // Only a caller that frees the slot when the response ends may take one; without it concurrency limits are left out.
      const slot = facts.slotted ? options.slot : undefined;
      const limits = facts.slotted && slot === undefined ? kept[i].filter((limit) => limit.concurrency === undefined) : kept[i];
      if (limits.length === 0) continue;
      const own = limits === kept[i] ? facts : limitFacts(limits);
      // A share_threshold match names its counter by the pattern, so every value it matches counts together.
      const globalKey = counterKey(domain.domain, matches[i]?.counterEntries ?? descriptor);
      // A node's limits share one scope (the compiler sees to it). A regional copy keeps the global one's shard
      // number in an object of its region's own, so its decisions never leave the region.
      const region = limits[0].scope === "region" ? (options.region ?? LOCAL_REGION) : undefined;
      const key = region === undefined ? globalKey : inRegion(globalKey, region);
      const shadow = (options.shadowAll ?? false) || (matches[i]?.shadowMode ?? false);
      // Shadow limits never block, so they never delay or queue either.
      const honoured = options.onLimit === true && !shadow;
      // Hits that may be given back after the response are taken at the object, which says when.
      const refundable = costFromResponse !== undefined || own.refundable;
      const direct = refundableCall(counterCall(key, limits, cost, honoured, slot), refundable);
      const globalName = objectName(domain.domain, domain.placement, domain.shards, globalKey, shardKey);
      // A rejection that delays or queues is not a plain 429, and a reservation is the object's to take: no cache, no pre-count.
      // A slot is the object's to give and to free: never from a cache or a pre-counted budget either.
      const plain = slot === undefined && !(honoured && own.acts);
      const syncMs = precount && plain && !refundable ? own.precountSyncMs : undefined;
      // A refund can free a cached rejection's quota early, so those are always asked.
      // Limits of 0 refuse whatever the counter holds: the rules answer, and no object is asked (nor a
      // region's relay, so the request's location is not read for them).
      const refused = plain && !refundable && direct.kind === undefined ? own.refusal : undefined;
      const relayable = region === undefined && refused === undefined && own.relayable ? relayRegion(options.region, plain && !refundable) : undefined;
      // Relayed only once its home said it is warm in this region; until then it goes home, saying from where
      // (docs/placement.md, "Relay only what pays"). Without `warm` (a caller that keeps none) it is always relayed.
      const relayTo = relayable !== undefined && (warm === undefined || warm.isWarm(warmId(direct, relayable), now)) ? relayable : undefined;
      const name = region !== undefined ? inRegion(globalName, region) : relayTo !== undefined ? inRegion(globalName, relayTo) : globalName;
      const home: CounterCall = relayable !== undefined && relayTo === undefined && direct.kind === undefined ? { ...direct, region: relayable } : direct;
      const call: CounterCall = relayTo === undefined ? home : { key, limits: direct.limits, cost, kind: "relay", object: name };
      outcomes[index].counter = { object: name, call };
      let list = byObject.get(name);
      if (list === undefined) byObject.set(name, (list = []));
      // A call its object may hint hot is pre-counted then (docs/precount.md, "Hot keys lease on their own"); a relayed one from
      // its region's copy (docs/placement.md, "Hot keys at the region's copy").
      // A penalty's block is the object's to keep: never leased (docs/rules.md, "Penalty box").
      const leasable = precount && plain && !refundable && syncMs === undefined && own.penalized !== true;
      const live: { -readonly [F in keyof PlannedCall]: PlannedCall[F] } = {
        call,
        cacheable: !shadow && plain && !refundable,
        syncMs,
        leasable,
        refused,
        outcome: index,
        limits,
        honoured,
      };
      // Which keys an enforce_percent limit enforces: a hash keyed by the deployment's secret (src/limiter/enforcement.ts).
      if (limits.some((limit) => limit.enforcePercent !== undefined)) live.enforcementBucket = enforcementBucket(key, shardKey);
      list.push(live);
      // Candidates are counted in the same object and RPC, in a call of their own (docs/rules.md, "Gradual and soft enforcement").
      const candidates = candidatesOf(limits);
      if (candidates !== undefined) list.push(candidateCall(live, candidates));
    }
  }
  return { outcomes, byObject };
}

/**
 * What a limit does to a request over it besides answering 429: its
 * `on_limit` when honoured and not `reject`.
 *
 * @example
 * actionOf(limit, true); // "delay" for a limit with on_limit: "delay"
 */
export function actionOf(limit: CompiledLimit, honoured: boolean): "delay" | "queue" | undefined {
  return honoured && (limit.onLimit === "delay" || limit.onLimit === "queue") ? limit.onLimit : undefined;
}

/**
 * The region whose copy of the home object decides a global call
 * (docs/placement.md, "Global limits decided in the region"): the
 * request's, when it has one and the call is a plain strong decision of
 * relayable limits (rules/facts.ts: pre-counted limits lease to isolates
 * from the home directly; slots, reservations and refundable hits are the
 * home's to take; strict limits write every change at the home before
 * answering, so they are decided there).
 */
function relayRegion(region: Region | undefined, plain: boolean): Region | undefined {
  return region === undefined || region === LOCAL_REGION || !plain ? undefined : region;
}

function refundableCall(call: CounterCall, refundable: boolean): CounterCall {
  return refundable ? { ...call, refundable: true } : call;
}
