/**
 * Certain-block cache: when a counter object answers "over the limit, next
 * allowed at T", this isolate answers the same request 429 locally until T
 * without asking the object. Exact, because a rejected request consumes
 * nothing and time only frees quota: nothing another isolate does can make
 * the request fit before T. (An admin counter reset or a rules change can;
 * rules changes give limits new ids and so new cache keys, and a reset is
 * seen by an isolate at the latest when its cached block expires.)
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
import type { CounterVerdict } from "../durable/protocol.ts";
interface Block {
  /** Local-clock instant before which the object would certainly reject (when the request was sent + retry-after). */
  readonly blockedUntil: number;
  /** Local-clock instant at which the object certainly allows again (when the answer arrived + retry-after), for Retry-After. */
  readonly allowedBy: number;
  readonly verdict: CounterVerdict;
  /** When the verdict was received, to age its relative times. */
  readonly receivedAt: number;
}

/** Default number of blocked counters remembered per isolate. */
export const BLOCK_CACHE_SIZE = 10_000;

/**
 * A bounded LRU of certain blocks, keyed by counter call (key + limit ids + cost).
 *
 * @example
 * const cache = new BlockCache();
 * cache.remember(cacheKey, verdict, sentAt, Date.now());
 * const cached = cache.lookup(cacheKey, Date.now()); // a verdict to answer 429 from, or undefined
 */
export class BlockCache {
  private readonly blocks = new Map<string, Block>();
  private readonly capacity: number;
  constructor(capacity = BLOCK_CACHE_SIZE) {
    if (stryMutAct_9fa48("0")) {
      {}
    } else {
      stryCov_9fa48("0");
      this.capacity = capacity;
    }
  }

  /**
   * Remember a rejection if it is certain (finite retry-after, counted by
   * every window). `sentAt`/`receivedAt` bracket the round trip, so the block
   * ends no later than the object's T and Retry-After is never earlier.
   *
   * @example
   * cache.remember(key, verdict, sentAt, receivedAt);
   */
  remember(key: string, verdict: CounterVerdict, sentAt: number, receivedAt: number): void {
    if (stryMutAct_9fa48("1")) {
      {}
    } else {
      stryCov_9fa48("1");
      // A rejection leased quota caused may pass as soon as the lease comes back: not certain.
      if (stryMutAct_9fa48("4") ? verdict.allowed && verdict.provisional === true : stryMutAct_9fa48("3") ? false : stryMutAct_9fa48("2") ? true : (stryCov_9fa48("2", "3", "4"), verdict.allowed || (stryMutAct_9fa48("6") ? verdict.provisional !== true : stryMutAct_9fa48("5") ? false : (stryCov_9fa48("5", "6"), verdict.provisional === (stryMutAct_9fa48("7") ? false : (stryCov_9fa48("7"), true)))))) return;
      let wait = 0;
      for (const decision of verdict.decisions) {
        if (stryMutAct_9fa48("8")) {
          {}
        } else {
          stryCov_9fa48("8");
          if (stryMutAct_9fa48("10") ? false : stryMutAct_9fa48("9") ? true : (stryCov_9fa48("9", "10"), decision.allowed)) continue;
          if (stryMutAct_9fa48("13") ? false : stryMutAct_9fa48("12") ? true : stryMutAct_9fa48("11") ? Number.isFinite(decision.retryAfterMs) : (stryCov_9fa48("11", "12", "13"), !Number.isFinite(decision.retryAfterMs))) return; // can never pass: nothing to learn about time
          wait = stryMutAct_9fa48("14") ? Math.min(wait, decision.retryAfterMs) : (stryCov_9fa48("14"), Math.max(wait, decision.retryAfterMs));
        }
      }
      if (stryMutAct_9fa48("18") ? wait > 0 : stryMutAct_9fa48("17") ? wait < 0 : stryMutAct_9fa48("16") ? false : stryMutAct_9fa48("15") ? true : (stryCov_9fa48("15", "16", "17", "18"), wait <= 0)) return;
      if (stryMutAct_9fa48("19")) {
        ;
      } else {
        stryCov_9fa48("19");
        this.blocks.delete(key);
      }
      this.blocks.set(key, stryMutAct_9fa48("21") ? {} : (stryCov_9fa48("21"), {
        blockedUntil: stryMutAct_9fa48("22") ? sentAt - wait : (stryCov_9fa48("22"), sentAt + wait),
        allowedBy: stryMutAct_9fa48("23") ? receivedAt - wait : (stryCov_9fa48("23"), receivedAt + wait),
        verdict,
        receivedAt
      }));
      if (stryMutAct_9fa48("27") ? this.blocks.size <= this.capacity : stryMutAct_9fa48("26") ? this.blocks.size >= this.capacity : stryMutAct_9fa48("25") ? false : stryMutAct_9fa48("24") ? true : (stryCov_9fa48("24", "25", "26", "27"), this.blocks.size > this.capacity)) if (stryMutAct_9fa48("28")) {
        ;
      } else {
        stryCov_9fa48("28");
        this.blocks.delete(this.blocks.keys().next().value as string);
      }
    }
  }

  /**
   * The cached rejection for `key` as it stands at `now`, with its times
   * re-based to `now`; undefined when there is none or it has expired.
   *
   * @example
   * const verdict = cache.lookup(key, Date.now());
   */
  lookup(key: string, now: number): CounterVerdict | undefined {
    if (stryMutAct_9fa48("29")) {
      {}
    } else {
      stryCov_9fa48("29");
      const block = this.blocks.get(key);
      if (stryMutAct_9fa48("32") ? block !== undefined : stryMutAct_9fa48("31") ? false : stryMutAct_9fa48("30") ? true : (stryCov_9fa48("30", "31", "32"), block === undefined)) return undefined;
      if (stryMutAct_9fa48("36") ? now < block.blockedUntil : stryMutAct_9fa48("35") ? now > block.blockedUntil : stryMutAct_9fa48("34") ? false : stryMutAct_9fa48("33") ? true : (stryCov_9fa48("33", "34", "35", "36"), now >= block.blockedUntil)) {
        if (stryMutAct_9fa48("37")) {
          {}
        } else {
          stryCov_9fa48("37");
          if (stryMutAct_9fa48("38")) {
            ;
          } else {
            stryCov_9fa48("38");
            this.blocks.delete(key);
          }
          return undefined;
        }
      }
      const aged = stryMutAct_9fa48("39") ? now + block.receivedAt : (stryCov_9fa48("39"), now - block.receivedAt);
      return stryMutAct_9fa48("40") ? {} : (stryCov_9fa48("40"), {
        allowed: stryMutAct_9fa48("41") ? true : (stryCov_9fa48("41"), false),
        decisions: block.verdict.decisions.map(stryMutAct_9fa48("42") ? () => undefined : (stryCov_9fa48("42"), d => stryMutAct_9fa48("43") ? {} : (stryCov_9fa48("43"), {
          ...d,
          remaining: d.allowed ? d.remaining : 0,
          resetAfterMs: stryMutAct_9fa48("44") ? Math.min(0, d.resetAfterMs - aged) : (stryCov_9fa48("44"), Math.max(0, stryMutAct_9fa48("45") ? d.resetAfterMs + aged : (stryCov_9fa48("45"), d.resetAfterMs - aged))),
          retryAfterMs: d.allowed ? 0 : stryMutAct_9fa48("46") ? Math.min(1, d.retryAfterMs - aged) : (stryCov_9fa48("46"), Math.max(1, stryMutAct_9fa48("47") ? d.retryAfterMs + aged : (stryCov_9fa48("47"), d.retryAfterMs - aged))),
          effectiveWindowMs: stryMutAct_9fa48("48") ? Math.min(1, d.effectiveWindowMs - aged) : (stryCov_9fa48("48"), Math.max(1, stryMutAct_9fa48("49") ? d.effectiveWindowMs + aged : (stryCov_9fa48("49"), d.effectiveWindowMs - aged)))
        })))
      });
    }
  }

  /**
   * Drop every cached block of a counter key (after an admin reset in this
   * isolate; other isolates drop theirs when the block expires).
   *
   * @example
   * cache.forget(counterKey);
   */
  forget(counterKey: string): void {
    if (stryMutAct_9fa48("50")) {
      {}
    } else {
      stryCov_9fa48("50");
      const prefix = stryMutAct_9fa48("51") ? `` : (stryCov_9fa48("51"), `${counterKey}\u0001`);
      for (const key of this.blocks.keys()) if (stryMutAct_9fa48("54") ? key.endsWith(prefix) : stryMutAct_9fa48("53") ? false : stryMutAct_9fa48("52") ? true : (stryCov_9fa48("52", "53", "54"), key.startsWith(prefix))) if (stryMutAct_9fa48("55")) {
        ;
      } else {
        stryCov_9fa48("55");
        this.blocks.delete(key);
      }
    }
  }

  /** Number of cached blocks. */
  get size(): number {
    if (stryMutAct_9fa48("56")) {
      {}
    } else {
      stryCov_9fa48("56");
      return this.blocks.size;
    }
  }
}