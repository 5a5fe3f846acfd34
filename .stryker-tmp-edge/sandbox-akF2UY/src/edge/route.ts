/**
 * Where the edge answers a counter call from: a cached certain block, this
 * isolate's pre-count, or the object that owns the counter. Decided here
 * once per call, for both the synchronous path (every call answered in the
 * isolate) and the asynchronous one.
 */
// @ts-nocheck
function stryNS_9fa48() {
  var g = typeof globalThis === 'object' && globalThis && globalThis.Math === Math && globalThis || new Function("return this")();
  var ns = g.__stryker__ || (g.__stryker__ = {});
  if (ns.activeMutant === undefined && g.process && g.process.env && g.process.env.__STRYKER_ACTIVE_MUTANT__) {
    ns.activeMutant = g.process.env.__STRYKER_ACTIVE_MUTANT__;
  }
  function retrieveNS() {
    return ns;
  }
  stryNS_9fa48 = retrieveNS;
  return retrieveNS();
}
stryNS_9fa48();
function stryCov_9fa48() {
  var ns = stryNS_9fa48();
  var cov = ns.mutantCoverage || (ns.mutantCoverage = {
    static: {},
    perTest: {}
  });
  function cover() {
    var c = cov.static;
    if (ns.currentTestId) {
      c = cov.perTest[ns.currentTestId] = cov.perTest[ns.currentTestId] || {};
    }
    var a = arguments;
    for (var i = 0; i < a.length; i++) {
      c[a[i]] = (c[a[i]] || 0) + 1;
    }
  }
  stryCov_9fa48 = cover;
  cover.apply(null, arguments);
}
function stryMutAct_9fa48(id) {
  var ns = stryNS_9fa48();
  function isActive(id) {
    if (ns.activeMutant === id) {
      if (ns.hitCount !== void 0 && ++ns.hitCount > ns.hitLimit) {
        throw new Error('Stryker: Hit count limit reached (' + ns.hitCount + ')');
      }
      return true;
    }
    return false;
  }
  stryMutAct_9fa48 = isActive;
  return isActive(id);
}
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
export type LocalRoute = {
  readonly kind: "cached";
  readonly verdict: CounterVerdict;
} | {
  readonly kind: "precount";
  readonly syncMs: number;
};

/** The route of one call at one instant. */
export type Route = LocalRoute | {
  readonly kind: "remote";
};
const REMOTE: Route = stryMutAct_9fa48("654") ? {} : (stryCov_9fa48("654"), {
  kind: stryMutAct_9fa48("655") ? "" : (stryCov_9fa48("655"), "remote")
});

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
  if (stryMutAct_9fa48("656")) {
    {}
  } else {
    stryCov_9fa48("656");
    const verdict = item.cacheable ? blocks.lookup(blockKey(item.call), now) : undefined;
    if (stryMutAct_9fa48("659") ? verdict === undefined : stryMutAct_9fa48("658") ? false : stryMutAct_9fa48("657") ? true : (stryCov_9fa48("657", "658", "659"), verdict !== undefined)) return stryMutAct_9fa48("660") ? {} : (stryCov_9fa48("660"), {
      kind: stryMutAct_9fa48("661") ? "" : (stryCov_9fa48("661"), "cached"),
      verdict
    });
    const {
      call,
      syncMs
    } = item;
    if (stryMutAct_9fa48("664") ? syncMs !== undefined && call.cost > 0 || call.kind === undefined || call.kind === "decide" : stryMutAct_9fa48("663") ? false : stryMutAct_9fa48("662") ? true : (stryCov_9fa48("662", "663", "664"), (stryMutAct_9fa48("666") ? syncMs !== undefined || call.cost > 0 : stryMutAct_9fa48("665") ? true : (stryCov_9fa48("665", "666"), (stryMutAct_9fa48("668") ? syncMs === undefined : stryMutAct_9fa48("667") ? true : (stryCov_9fa48("667", "668"), syncMs !== undefined)) && (stryMutAct_9fa48("671") ? call.cost <= 0 : stryMutAct_9fa48("670") ? call.cost >= 0 : stryMutAct_9fa48("669") ? true : (stryCov_9fa48("669", "670", "671"), call.cost > 0)))) && (stryMutAct_9fa48("673") ? call.kind === undefined && call.kind === "decide" : stryMutAct_9fa48("672") ? true : (stryCov_9fa48("672", "673"), (stryMutAct_9fa48("675") ? call.kind !== undefined : stryMutAct_9fa48("674") ? false : (stryCov_9fa48("674", "675"), call.kind === undefined)) || (stryMutAct_9fa48("677") ? call.kind !== "decide" : stryMutAct_9fa48("676") ? false : (stryCov_9fa48("676", "677"), call.kind === (stryMutAct_9fa48("678") ? "" : (stryCov_9fa48("678"), "decide")))))))) return stryMutAct_9fa48("679") ? {} : (stryCov_9fa48("679"), {
      kind: stryMutAct_9fa48("680") ? "" : (stryCov_9fa48("680"), "precount"),
      syncMs
    });
    return REMOTE;
  }
}

/**
 * Remember the object's (or the pre-count's) answer to `item` when it is a
 * certain block (see BlockCache.remember).
 *
 * @example
 * rememberBlock(item, verdict, edge.blocks, sentAt, Date.now());
 */
export function rememberBlock(item: EdgeCall, verdict: CounterVerdict, blocks: BlockCache, sentAt: number, receivedAt: number): void {
  if (stryMutAct_9fa48("681")) {
    {}
  } else {
    stryCov_9fa48("681");
    if (stryMutAct_9fa48("683") ? false : stryMutAct_9fa48("682") ? true : (stryCov_9fa48("682", "683"), item.cacheable)) if (stryMutAct_9fa48("684")) {
      ;
    } else {
      stryCov_9fa48("684");
      blocks.remember(blockKey(item.call), verdict, sentAt, receivedAt);
    }
  }
}
function blockKey(call: CounterCall): string {
  if (stryMutAct_9fa48("685")) {
    {}
  } else {
    stryCov_9fa48("685");
    let key = stryMutAct_9fa48("686") ? `` : (stryCov_9fa48("686"), `${call.key}\u0001${call.cost}`);
    for (const limit of call.limits) key += stryMutAct_9fa48("687") ? `` : (stryCov_9fa48("687"), `\u0001${limit.id}`);
    return key;
  }
}