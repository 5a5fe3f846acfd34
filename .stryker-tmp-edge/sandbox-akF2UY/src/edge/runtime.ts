/**
 * One isolate's edge machinery in front of the counter objects: the
 * certain-block cache, request coalescing and pre-counting, behind a single
 * `decideCalls` the decision engine uses for every object it needs. Which
 * of them answers a call is decided in one place, `routeOf` (route.ts).
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
import type { CounterVerdict, SendBatch } from "../durable/protocol.ts";
import type { Env } from "../config.ts";
import type { Defer } from "../http/defer.ts";
import { BlockCache } from "./block-cache.ts";
import { Coalescer } from "./coalescer.ts";
import { PrecountTable, precountId } from "./precount.ts";
import { rememberBlock, routeOf, type EdgeCall, type LocalRoute } from "./route.ts";
export type { EdgeCall } from "./route.ts";

/** What the edge did, for tests, metrics and the bench. */
export interface EdgeStats {
  /** Calls answered 429 from the block cache. */
  cachedBlocks: number;
}

/** Options of an isolate's edge runtime. */
export interface EdgeOptions {
  /** Batch concurrent calls per object (default true; the bench turns it off to measure what it buys). */
  readonly coalesce?: boolean;
  /** The clock (tests drive it). */
  readonly now?: () => number;
  /** DECISION_TIMEOUT_MS: nobody waits for an answer longer, so no request is kept alive longer for one. */
  readonly decisionTimeoutMs?: number;
}

/**
 * Edge machinery for a counters binding. One runtime per isolate, made with
 * the isolate's context (src/context/): caches and batches are per isolate by nature.
 *
 * @example
 * const edge = new EdgeRuntime(env.COUNTERS);
 * const verdicts = await edge.decideCalls("api/shard/3", [{ call, cacheable: true }], defer);
 */
export class EdgeRuntime {
  readonly blocks = new BlockCache();
  readonly coalescer: Coalescer;
  readonly precount: PrecountTable;
  readonly stats: EdgeStats = stryMutAct_9fa48("688") ? {} : (stryCov_9fa48("688"), {
    cachedBlocks: 0
  });
  private readonly now: () => number;
  private readonly sendBatch: SendBatch;
  constructor(counters: Env["COUNTERS"], options: EdgeOptions = {}) {
    if (stryMutAct_9fa48("689")) {
      {}
    } else {
      stryCov_9fa48("689");
      this.now = stryMutAct_9fa48("690") ? options.now && Date.now : (stryCov_9fa48("690"), options.now ?? Date.now);
      const direct: SendBatch = stryMutAct_9fa48("691") ? () => undefined : (stryCov_9fa48("691"), (() => {
        const direct: SendBatch = (name, calls) => counters.getByName(name).decide(calls) as Promise<CounterVerdict[]>;
        return direct;
      })());
      this.coalescer = new Coalescer(direct, stryMutAct_9fa48("692") ? {} : (stryCov_9fa48("692"), {
        keepAliveMs: options.decisionTimeoutMs
      }));
      this.sendBatch = (stryMutAct_9fa48("695") ? options.coalesce !== false : stryMutAct_9fa48("694") ? false : stryMutAct_9fa48("693") ? true : (stryCov_9fa48("693", "694", "695"), options.coalesce === (stryMutAct_9fa48("696") ? true : (stryCov_9fa48("696"), false)))) ? direct : stryMutAct_9fa48("697") ? () => undefined : (stryCov_9fa48("697"), (name, calls, defer) => this.coalescer.submit(name, calls, defer));
      // Pre-counting passes its request's (or its sync's host request's) defer on: a batch it sends for other
      // callers keeps that request alive until they have their answers.
      this.precount = new PrecountTable(this.sendBatch, this.now);
    }
  }

  /**
   * The answers when every call can be decided in this isolate right now
   * (a cached certain block, or a pre-counted call within its budget), else
   * undefined, having consumed nothing. Synchronous: a request answered
   * here needs no object, so the caller arms no decision timeout for it.
   *
   * @example
   * const verdicts = edge.localVerdicts(calls, (p) => ctx.waitUntil(p)); // CounterVerdict[] | undefined
   */
  localVerdicts(items: readonly EdgeCall[], defer: Defer): CounterVerdict[] | undefined {
    if (stryMutAct_9fa48("698")) {
      {}
    } else {
      stryCov_9fa48("698");
      const now = this.now();
      const routes: LocalRoute[] = stryMutAct_9fa48("699") ? ["Stryker was here"] : (stryCov_9fa48("699"), []);
      // The pre-counted counters' ids, in order: computed once, used for both steps.
      const ids: string[] = stryMutAct_9fa48("700") ? ["Stryker was here"] : (stryCov_9fa48("700"), []);
      for (const item of items) {
        if (stryMutAct_9fa48("701")) {
          {}
        } else {
          stryCov_9fa48("701");
          const route = routeOf(item, this.blocks, now);
          if (stryMutAct_9fa48("704") ? route.kind !== "remote" : stryMutAct_9fa48("703") ? false : stryMutAct_9fa48("702") ? true : (stryCov_9fa48("702", "703", "704"), route.kind === (stryMutAct_9fa48("705") ? "" : (stryCov_9fa48("705"), "remote")))) return undefined;
          if (stryMutAct_9fa48("708") ? route.kind !== "precount" : stryMutAct_9fa48("707") ? false : stryMutAct_9fa48("706") ? true : (stryCov_9fa48("706", "707", "708"), route.kind === (stryMutAct_9fa48("709") ? "" : (stryCov_9fa48("709"), "precount")))) {
            if (stryMutAct_9fa48("710")) {
              {}
            } else {
              stryCov_9fa48("710");
              const id = precountId(item.call);
              // The same `now` for the check and the decision below, so a view cannot age past a limit in between.
              if (stryMutAct_9fa48("713") ? false : stryMutAct_9fa48("712") ? true : stryMutAct_9fa48("711") ? this.precount.canDecideLocally(item.call, route.syncMs, now, id) : (stryCov_9fa48("711", "712", "713"), !this.precount.canDecideLocally(item.call, route.syncMs, now, id))) return undefined;
              // The same counter twice in one request (whatever the costs) would spend one budget twice; let decideCalls take it in order.
              if (stryMutAct_9fa48("715") ? false : stryMutAct_9fa48("714") ? true : (stryCov_9fa48("714", "715"), ids.includes(id))) return undefined;
              if (stryMutAct_9fa48("716")) {
                ;
              } else {
                stryCov_9fa48("716");
                ids.push(id);
              }
            }
          }
          if (stryMutAct_9fa48("717")) {
            ;
          } else {
            stryCov_9fa48("717");
            routes.push(route);
          }
        }
      }
      const verdicts: CounterVerdict[] = stryMutAct_9fa48("718") ? ["Stryker was here"] : (stryCov_9fa48("718"), []);
      let precounted = 0;
      for (let i = 0; stryMutAct_9fa48("721") ? i >= items.length : stryMutAct_9fa48("720") ? i <= items.length : stryMutAct_9fa48("719") ? false : (stryCov_9fa48("719", "720", "721"), i < items.length); stryMutAct_9fa48("722") ? i-- : (stryCov_9fa48("722"), i++)) {
        if (stryMutAct_9fa48("723")) {
          {}
        } else {
          stryCov_9fa48("723");
          const route = routes[i];
          if (stryMutAct_9fa48("726") ? route.kind !== "cached" : stryMutAct_9fa48("725") ? false : stryMutAct_9fa48("724") ? true : (stryCov_9fa48("724", "725", "726"), route.kind === (stryMutAct_9fa48("727") ? "" : (stryCov_9fa48("727"), "cached")))) {
            if (stryMutAct_9fa48("728")) {
              {}
            } else {
              stryCov_9fa48("728");
              stryMutAct_9fa48("729") ? this.stats.cachedBlocks -= 1 : (stryCov_9fa48("729"), this.stats.cachedBlocks += 1);
              if (stryMutAct_9fa48("730")) {
                ;
              } else {
                stryCov_9fa48("730");
                verdicts.push(route.verdict);
              }
              continue;
            }
          }
          const verdict = this.precount.decideLocally(items[i].call, route.syncMs, defer, now, ids[stryMutAct_9fa48("731") ? precounted-- : (stryCov_9fa48("731"), precounted++)]);
          // Unreachable after the checks above; a plain error beats a verdict missing further on.
          if (stryMutAct_9fa48("734") ? verdict !== undefined : stryMutAct_9fa48("733") ? false : stryMutAct_9fa48("732") ? true : (stryCov_9fa48("732", "733", "734"), verdict === undefined)) throw new Error(stryMutAct_9fa48("736") ? `` : (stryCov_9fa48("736"), `pre-counted call for ${items[i].call.key} could not be decided locally after its check`));
          if (stryMutAct_9fa48("737")) {
            ;
          } else {
            stryCov_9fa48("737");
            verdicts.push(verdict);
          }
        }
      }
      return verdicts;
    }
  }

  /**
   * Decide calls owned by one object: cached blocks answer at once,
   * pre-counted calls decide locally, the rest go to the object (batched).
   *
   * @example
   * const [verdict] = await edge.decideCalls(name, [{ call, cacheable: true }], (p) => ctx.waitUntil(p));
   */
  async decideCalls(objectName: string, items: readonly EdgeCall[], defer: Defer): Promise<CounterVerdict[]> {
    if (stryMutAct_9fa48("738")) {
      {}
    } else {
      stryCov_9fa48("738");
      const now = this.now();
      const verdicts: CounterVerdict[] = stryMutAct_9fa48("739") ? new Array() : (stryCov_9fa48("739"), new Array(items.length));
      const remote: number[] = stryMutAct_9fa48("740") ? ["Stryker was here"] : (stryCov_9fa48("740"), []);
      const local: Promise<void>[] = stryMutAct_9fa48("741") ? ["Stryker was here"] : (stryCov_9fa48("741"), []);
      items.forEach((item, i) => {
        if (stryMutAct_9fa48("743")) {
          {}
        } else {
          stryCov_9fa48("743");
          const route = routeOf(item, this.blocks, now);
          if (stryMutAct_9fa48("746") ? route.kind !== "cached" : stryMutAct_9fa48("745") ? false : stryMutAct_9fa48("744") ? true : (stryCov_9fa48("744", "745", "746"), route.kind === (stryMutAct_9fa48("747") ? "" : (stryCov_9fa48("747"), "cached")))) {
            if (stryMutAct_9fa48("748")) {
              {}
            } else {
              stryCov_9fa48("748");
              stryMutAct_9fa48("749") ? this.stats.cachedBlocks -= 1 : (stryCov_9fa48("749"), this.stats.cachedBlocks += 1);
              verdicts[i] = route.verdict;
            }
          } else if (stryMutAct_9fa48("752") ? route.kind !== "precount" : stryMutAct_9fa48("751") ? false : stryMutAct_9fa48("750") ? true : (stryCov_9fa48("750", "751", "752"), route.kind === (stryMutAct_9fa48("753") ? "" : (stryCov_9fa48("753"), "precount")))) {
            if (stryMutAct_9fa48("754")) {
              {}
            } else {
              stryCov_9fa48("754");
              local.push(this.precount.decide(objectName, item.call, route.syncMs, defer).then(verdict => {
                if (stryMutAct_9fa48("756")) {
                  {}
                } else {
                  stryCov_9fa48("756");
                  verdicts[i] = verdict;
                  if (stryMutAct_9fa48("757")) {
                    ;
                  } else {
                    stryCov_9fa48("757");
                    rememberBlock(item, verdict, this.blocks, now, this.now());
                  }
                }
              }));
            }
          } else {
            if (stryMutAct_9fa48("758")) {
              {}
            } else {
              stryCov_9fa48("758");
              if (stryMutAct_9fa48("759")) {
                ;
              } else {
                stryCov_9fa48("759");
                remote.push(i);
              }
            }
          }
        }
      });
      if (stryMutAct_9fa48("763") ? remote.length <= 0 : stryMutAct_9fa48("762") ? remote.length >= 0 : stryMutAct_9fa48("761") ? false : stryMutAct_9fa48("760") ? true : (stryCov_9fa48("760", "761", "762", "763"), remote.length > 0)) {
        if (stryMutAct_9fa48("764")) {
          {}
        } else {
          stryCov_9fa48("764");
          const answers = await this.sendBatch(objectName, remote.map(stryMutAct_9fa48("765") ? () => undefined : (stryCov_9fa48("765"), i => items[i].call)), defer);
          const receivedAt = this.now();
          remote.forEach((i, j) => {
            if (stryMutAct_9fa48("767")) {
              {}
            } else {
              stryCov_9fa48("767");
              verdicts[i] = answers[j];
              if (stryMutAct_9fa48("768")) {
                ;
              } else {
                stryCov_9fa48("768");
                rememberBlock(items[i], answers[j], this.blocks, now, receivedAt);
              }
            }
          });
        }
      }
      await Promise.all(local);
      return verdicts;
    }
  }
}