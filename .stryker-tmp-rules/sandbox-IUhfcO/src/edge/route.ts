/**
 * Where the edge answers a counter call from: a cached certain block, this
 * isolate's pre-count, or the object that owns the counter. Decided here
 * once per call, for both the synchronous path (every call answered in the
 * isolate) and the asynchronous one.
 */
// @ts-nocheck

import type { CounterCall, CounterVerdict } from "../durable/protocol.ts";
import type { BlockCache } from "./block-cache.ts";

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
}

/** A route that stays in this isolate (pre-counting may still ask the object). */
export type LocalRoute = { readonly kind: "cached"; readonly verdict: CounterVerdict } | { readonly kind: "precount"; readonly syncMs: number };

/** The route of one call at one instant. */
export type Route = LocalRoute | { readonly kind: "remote" };

const REMOTE: Route = { kind: "remote" };

/**
 * Route `item` at `now`: its cached block if it is cacheable and blocked;
 * else this isolate's pre-count if it is a plain call that adds hits to a
 * pre-counted counter (pre-counting may still ask the object); else the
 * object.
 *
 * @example
 * const route = routeOf({ call, cacheable: true }, edge.blocks, Date.now());
 * if (route.kind === "cached") return route.verdict;
 */
export function routeOf(item: EdgeCall, blocks: BlockCache, now: number): Route {
  const verdict = item.cacheable ? blocks.lookup(blockKey(item.call), now) : undefined;
  if (verdict !== undefined) return { kind: "cached", verdict };
  const { call, syncMs } = item;
  if (syncMs !== undefined && call.cost > 0 && (call.kind === undefined || call.kind === "decide")) return { kind: "precount", syncMs };
  return REMOTE;
}

/**
 * Remember the object's (or the pre-count's) answer to `item` when it is a
 * certain block (see BlockCache.remember).
 *
 * @example
 * rememberBlock(item, verdict, edge.blocks, sentAt, Date.now());
 */
export function rememberBlock(item: EdgeCall, verdict: CounterVerdict, blocks: BlockCache, sentAt: number, receivedAt: number): void {
  if (item.cacheable) blocks.remember(blockKey(item.call), verdict, sentAt, receivedAt);
}

function blockKey(call: CounterCall): string {
  let key = `${call.key}\u0001${call.cost}`;
  for (const limit of call.limits) key += `\u0001${limit.id}`;
  return key;
}
