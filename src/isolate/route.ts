/**
 * Where the edge answers a counter call from: a cached certain block, this
 * isolate's pre-count, or the object that owns the counter. Decided here
 * once per call, for both the synchronous path (every call answered in the
 * isolate) and the asynchronous one.
 */
import type { CounterCall, CounterVerdict } from "../stored/wire-calls.ts";
import { type BlockCache, blockKey } from "./block-cache.ts";
import type { HotHints } from "./hot-hints.ts";
import { precountId } from "./precount-view.ts";
import { ZERO_LIMIT } from "../rules/facts.ts";

/** One counter call and what the edge may do with it, fixed when the call is planned. */
export interface EdgeCall {
  readonly call: CounterCall;
  /**
   * Whether a rejection is a plain 429 the object would repeat until its
   * retry-after, so the block cache may answer and remember it. Not so for
   * shadow calls (they never block) nor for calls whose limits delay or
   * queue (their rejection means something else, and a reservation must be
   * taken by the object).
   */
  readonly cacheable: boolean;
  /** Set when the call may be pre-counted (every limit has `precount`): the smallest `sync_ms`. */
  readonly syncMs?: number;
  /**
   * The call may be pre-counted when its object says the counter is hot
   * (docs/precount.md, "Hot keys lease on their own"): a plain call, not
   * refundable, from a request with somewhere to run syncs. The decision
   * API never sets it (its callers ask for the object's exact answer).
   */
  readonly leasable?: boolean;
  /**
   * Set when no counter state can change the answer (every limit is 0, see
   * `neverAllowed`): the verdict the object would give, answered without asking it.
   */
  readonly refused?: CounterVerdict;
}

/**
 * A route that stays in this isolate (pre-counting may still ask the object):
 * a cached block, a call no state can allow (`refused`), or the pre-count.
 */
export type LocalRoute =
  | { readonly kind: "cached"; readonly verdict: CounterVerdict }
  | { readonly kind: "refused"; readonly verdict: CounterVerdict }
  | { readonly kind: "precount"; readonly syncMs: number; readonly auto?: true };

/** The route of one call at one instant. */
export type Route = LocalRoute | { readonly kind: "remote" };

const REMOTE: Route = { kind: "remote" };

/**
 * Route `item` at `now`: its fixed refusal if no state can allow it; its
 * cached block if it is cacheable and blocked;
 * else this isolate's pre-count if it is a plain call that adds hits to a
 * pre-counted counter (its rule's `precount`, or, for a leasable call, its
 * object's hint that the counter is hot, from `hints`; pre-counting may
 * still ask the object); else the object.
 *
 * @example
 * const route = routeOf({ call, cacheable: true }, edge.blocks, Date.now());
 * if (route.kind === "cached") return route.verdict;
 */
export function routeOf(item: EdgeCall, blocks: BlockCache, now: number, hints?: HotHints): Route {
  if (item.refused !== undefined) return { kind: "refused", verdict: item.refused };
  const verdict = item.cacheable ? blocks.lookup(blockKey(item.call), now) : undefined;
  if (verdict !== undefined) return { kind: "cached", verdict };
  const { call, syncMs } = item;
  // A relayed call is pre-counted only on its region's copy's hint (docs/placement.md, "Hot keys at the region's copy").
  if (call.cost <= 0 || (call.kind !== undefined && call.kind !== "decide" && call.kind !== "relay")) return REMOTE;
  if (syncMs !== undefined && call.kind !== "relay") return { kind: "precount", syncMs };
  if (item.leasable !== true || hints === undefined || hints.size === 0 || ("slot" in call && call.slot !== undefined)) return REMOTE;
  const hinted = hints.syncMsOf(precountId(call));
  return hinted === undefined ? REMOTE : { kind: "precount", syncMs: hinted, auto: true };
}

/**
 * Remember the object's (or the pre-count's) answer to `item` when it is a
 * certain block (see BlockCache.remember).
 *
 * @example
 * rememberBlock(item, verdict, edge.blocks, sentAt, Date.now());
 */
export function rememberBlock(item: EdgeCall, verdict: CounterVerdict, blocks: BlockCache, sentAt: number, receivedAt: number): void {
  if (item.cacheable) blocks.remember(blockKey(item.call), verdict, sentAt, receivedAt, escalates(item.call));
}

// A penalty that breaches escalate: its block is asked of the object again before it ends (block-cache.ts, renewAt).
function escalates(call: CounterCall): boolean {
  for (const limit of call.limits) if (limit.penalty !== undefined && limit.penalty.escalate > 1) return true;
  return false;
}

// The decision of a limit of 0 is the rules' own (src/rules/facts.ts): one object, whoever answers with it.
export { ZERO_LIMIT };

/**
 * The verdict of a plain call (no slot, nothing to reserve or refund) whose
 * every limit is 0: what the object would answer, whatever its counters
 * hold, since nothing ever fits a limit of 0 and a rejection consumes
 * nothing. Undefined when a limit is above 0 or is a concurrency limit.
 *
 * @example
 * neverAllowed([{ limit: 0, concurrency: undefined }])?.allowed; // false
 */
export function neverAllowed(limits: readonly { readonly limit: number; readonly concurrency?: unknown }[]): CounterVerdict | undefined {
  if (limits.length === 0) return undefined;
  for (const limit of limits) if (limit.limit !== 0 || limit.concurrency !== undefined) return undefined;
  return { allowed: false, decisions: limits.map(() => ZERO_LIMIT) };
}
