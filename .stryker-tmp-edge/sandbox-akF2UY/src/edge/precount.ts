/**
 * Edge pre-counting (`precount`; docs: "Edge pre-counting"). An isolate
 * decides a hot counter locally while the quota the object leased it
 * lasts, and sends the hits it took to the object in the background at
 * least every `sync_ms`, asking for its next lease in the same call. The
 * object counts leased quota as taken in every other decision, so the
 * isolates together never allow more than the counter admits, however
 * many they are (src/durable/leases.ts). When its lease is spent or has
 * run out an isolate decides strongly, through the object, so decisions
 * near the limit are exact.
 *
 * This file keeps the table of counters and decides; precount-view.ts holds
 * one counter's view and budget, precount-chain.ts the background syncs
 * (when they run, when they stop, and the convergence guarantee).
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
import type { Decision } from "../algorithms/types.ts";
import type { CounterCall, CounterVerdict, SendBatch } from "../durable/protocol.ts";
import type { Defer } from "../http/defer.ts";
import { Syncer } from "./precount-chain.ts";
import { canSpend, freshFor, isHot, localVerdict, newEntry, noteHit, precountId, refresh, setLease, setView, syncCall, type Entry, type PrecountStats } from "./precount-view.ts";
export { CHAIN_HANDOFF_MS, CHAIN_MAX_MS } from "./precount-chain.ts";
export { LEASE_MIN, leaseTtl, precountId, type PrecountStats } from "./precount-view.ts";

/** Counters an isolate pre-counts at once; idle ones beyond this are forgotten (they are re-learned strongly). */
export const PRECOUNT_ENTRIES = 10_000;

/**
 * One isolate's pre-counting state. `defer` keeps background syncs alive
 * after the response (ctx.waitUntil); `now` is the clock.
 *
 * @example
 * const table = new PrecountTable(send, () => Date.now());
 * const verdict = await table.decide(name, call, 100, (p) => ctx.waitUntil(p));
 */
export class PrecountTable {
  private readonly entries = new Map<string, Entry>();
  private readonly send: SendBatch;
  private readonly now: () => number;
  private readonly syncer: Syncer;
  readonly stats: PrecountStats = stryMutAct_9fa48("469") ? {} : (stryCov_9fa48("469"), {
    local: 0,
    strong: 0,
    flushes: 0,
    overshoot: 0
  });
  constructor(send: SendBatch, now: () => number) {
    if (stryMutAct_9fa48("470")) {
      {}
    } else {
      stryCov_9fa48("470");
      this.send = send;
      this.now = now;
      this.syncer = new Syncer(send, now, this.stats);
    }
  }

  /**
   * Decide one call (cost ≥ 1) for a counter with precount enabled.
   *
   * @example
   * const verdict = await table.decide("api/shard/3", call, 100, defer);
   */
  async decide(objectName: string, call: CounterCall, syncMs: number, defer: Defer): Promise<CounterVerdict> {
    if (stryMutAct_9fa48("471")) {
      {}
    } else {
      stryCov_9fa48("471");
      const local = this.decideLocally(call, syncMs, defer);
      if (stryMutAct_9fa48("474") ? local === undefined : stryMutAct_9fa48("473") ? false : stryMutAct_9fa48("472") ? true : (stryCov_9fa48("472", "473", "474"), local !== undefined)) return local;
      const id = precountId(call);
      const entry = this.entries.get(id);
      // A hit on a counter this isolate is pre-counting keeps its refresh chain going; a first (or long-paused) one only learns.
      const startedAt = this.now();
      if (stryMutAct_9fa48("477") ? entry === undefined : stryMutAct_9fa48("476") ? false : stryMutAct_9fa48("475") ? true : (stryCov_9fa48("475", "476", "477"), entry !== undefined)) if (stryMutAct_9fa48("478")) {
        ;
      } else {
        stryCov_9fa48("478");
        noteHit(entry, startedAt);
      }
      const fresh = stryMutAct_9fa48("481") ? entry !== undefined || startedAt - entry.syncedAt < freshFor(syncMs) : stryMutAct_9fa48("480") ? false : stryMutAct_9fa48("479") ? true : (stryCov_9fa48("479", "480", "481"), (stryMutAct_9fa48("483") ? entry === undefined : stryMutAct_9fa48("482") ? true : (stryCov_9fa48("482", "483"), entry !== undefined)) && (stryMutAct_9fa48("486") ? startedAt - entry.syncedAt >= freshFor(syncMs) : stryMutAct_9fa48("485") ? startedAt - entry.syncedAt <= freshFor(syncMs) : stryMutAct_9fa48("484") ? true : (stryCov_9fa48("484", "485", "486"), (stryMutAct_9fa48("487") ? startedAt + entry.syncedAt : (stryCov_9fa48("487"), startedAt - entry.syncedAt)) < freshFor(syncMs))));
      const hot = stryMutAct_9fa48("490") ? entry !== undefined || isHot(entry, startedAt) : stryMutAct_9fa48("489") ? false : stryMutAct_9fa48("488") ? true : (stryCov_9fa48("488", "489", "490"), (stryMutAct_9fa48("492") ? entry === undefined : stryMutAct_9fa48("491") ? true : (stryCov_9fa48("491", "492"), entry !== undefined)) && isHot(entry, startedAt));
      stryMutAct_9fa48("493") ? this.stats.strong -= 1 : (stryCov_9fa48("493"), this.stats.strong += 1);
      const carried = stryMutAct_9fa48("494") ? entry?.pending && 0 : (stryCov_9fa48("494"), (stryMutAct_9fa48("495") ? entry.pending : (stryCov_9fa48("495"), entry?.pending)) ?? 0);
      // Only a counter hot in this isolate syncs (and holds a lease): on one hit now and then, syncing would cost more than it saves.
      const own = stryMutAct_9fa48("498") ? entry !== undefined || carried > 0 || fresh && hot : stryMutAct_9fa48("497") ? false : stryMutAct_9fa48("496") ? true : (stryCov_9fa48("496", "497", "498"), (stryMutAct_9fa48("500") ? entry === undefined : stryMutAct_9fa48("499") ? true : (stryCov_9fa48("499", "500"), entry !== undefined)) && (stryMutAct_9fa48("502") ? carried > 0 && fresh && hot : stryMutAct_9fa48("501") ? true : (stryCov_9fa48("501", "502"), (stryMutAct_9fa48("505") ? carried <= 0 : stryMutAct_9fa48("504") ? carried >= 0 : stryMutAct_9fa48("503") ? false : (stryCov_9fa48("503", "504", "505"), carried > 0)) || (stryMutAct_9fa48("507") ? fresh || hot : stryMutAct_9fa48("506") ? false : (stryCov_9fa48("506", "507"), fresh && hot)))));
      // The sync rides along unless one is already on its way (one at a time, see Entry.syncing).
      const syncs = stryMutAct_9fa48("510") ? own || !entry.syncing : stryMutAct_9fa48("509") ? false : stryMutAct_9fa48("508") ? true : (stryCov_9fa48("508", "509", "510"), own && (stryMutAct_9fa48("511") ? entry.syncing : (stryCov_9fa48("511"), !entry.syncing)));
      // The hit first, decided beside everyone's leases (this isolate's own included: it asks because its lease is spent
      // or gone); then, for a hot counter, a sync that reports the carried hits and asks for the next lease.
      const calls: CounterCall[] = stryMutAct_9fa48("512") ? [] : (stryCov_9fa48("512"), [call]);
      if (stryMutAct_9fa48("515") ? entry === undefined : stryMutAct_9fa48("514") ? false : stryMutAct_9fa48("513") ? true : (stryCov_9fa48("513", "514", "515"), entry !== undefined)) {
        if (stryMutAct_9fa48("516")) {
          {}
        } else {
          stryCov_9fa48("516");
          stryMutAct_9fa48("517") ? entry.hitsSinceSync -= call.cost : (stryCov_9fa48("517"), entry.hitsSinceSync += call.cost);
          // A hot counter's hit that its lease could not cover: the lease ran short.
          if (stryMutAct_9fa48("520") ? hot || fresh : stryMutAct_9fa48("519") ? false : stryMutAct_9fa48("518") ? true : (stryCov_9fa48("518", "519", "520"), hot && fresh)) stryMutAct_9fa48("521") ? entry.shortSinceSync -= call.cost : (stryCov_9fa48("521"), entry.shortSinceSync += call.cost);
          stryMutAct_9fa48("522") ? entry.asking -= call.cost : (stryCov_9fa48("522"), entry.asking += call.cost);
        }
      }
      const sent = syncs ? carried : 0;
      if (stryMutAct_9fa48("524") ? false : stryMutAct_9fa48("523") ? true : (stryCov_9fa48("523", "524"), syncs)) {
        if (stryMutAct_9fa48("525")) {
          {}
        } else {
          stryCov_9fa48("525");
          entry.syncing = stryMutAct_9fa48("526") ? false : (stryCov_9fa48("526"), true);
          entry.pending = 0;
          stryMutAct_9fa48("527") ? entry.inflight -= sent : (stryCov_9fa48("527"), entry.inflight += sent);
          if (stryMutAct_9fa48("528")) {
            ;
          } else {
            stryCov_9fa48("528");
            calls.push(syncCall(entry, sent, this.syncer.holder, startedAt));
          }
        }
      }
      let verdicts: CounterVerdict[];
      try {
        if (stryMutAct_9fa48("529")) {
          {}
        } else {
          stryCov_9fa48("529");
          verdicts = await this.send(objectName, calls, defer);
        }
      } catch (error) {
        if (stryMutAct_9fa48("530")) {
          {}
        } else {
          stryCov_9fa48("530");
          // The object did not answer: the carried hits wait for the next sync rather than being lost.
          if (stryMutAct_9fa48("532") ? false : stryMutAct_9fa48("531") ? true : (stryCov_9fa48("531", "532"), syncs)) {
            if (stryMutAct_9fa48("533")) {
              {}
            } else {
              stryCov_9fa48("533");
              stryMutAct_9fa48("534") ? entry.inflight += sent : (stryCov_9fa48("534"), entry.inflight -= sent);
              stryMutAct_9fa48("535") ? entry.pending -= sent : (stryCov_9fa48("535"), entry.pending += sent);
              entry.syncing = stryMutAct_9fa48("536") ? true : (stryCov_9fa48("536"), false);
            }
          }
          throw error;
        }
      } finally {
        if (stryMutAct_9fa48("537")) {
          {}
        } else {
          stryCov_9fa48("537");
          if (stryMutAct_9fa48("540") ? entry === undefined : stryMutAct_9fa48("539") ? false : stryMutAct_9fa48("538") ? true : (stryCov_9fa48("538", "539", "540"), entry !== undefined)) stryMutAct_9fa48("541") ? entry.asking += call.cost : (stryCov_9fa48("541"), entry.asking -= call.cost);
        }
      }
      if (stryMutAct_9fa48("543") ? false : stryMutAct_9fa48("542") ? true : (stryCov_9fa48("542", "543"), syncs)) {
        if (stryMutAct_9fa48("544")) {
          {}
        } else {
          stryCov_9fa48("544");
          stryMutAct_9fa48("545") ? entry.inflight += sent : (stryCov_9fa48("545"), entry.inflight -= sent);
          entry.syncing = stryMutAct_9fa48("546") ? true : (stryCov_9fa48("546"), false);
        }
      }
      const verdict = verdicts[0];
      const synced = syncs ? verdicts[1] : undefined;
      const accepted = (stryMutAct_9fa48("549") ? synced !== undefined || sent > 0 : stryMutAct_9fa48("548") ? false : stryMutAct_9fa48("547") ? true : (stryCov_9fa48("547", "548", "549"), (stryMutAct_9fa48("551") ? synced === undefined : stryMutAct_9fa48("550") ? true : (stryCov_9fa48("550", "551"), synced !== undefined)) && (stryMutAct_9fa48("554") ? sent <= 0 : stryMutAct_9fa48("553") ? sent >= 0 : stryMutAct_9fa48("552") ? true : (stryCov_9fa48("552", "553", "554"), sent > 0)))) ? stryMutAct_9fa48("555") ? synced.accepted && sent : (stryCov_9fa48("555"), synced.accepted ?? sent) : 0;
      if (stryMutAct_9fa48("559") ? sent <= 0 : stryMutAct_9fa48("558") ? sent >= 0 : stryMutAct_9fa48("557") ? false : stryMutAct_9fa48("556") ? true : (stryCov_9fa48("556", "557", "558", "559"), sent > 0)) stryMutAct_9fa48("560") ? this.stats.overshoot -= sent - accepted : (stryCov_9fa48("560"), this.stats.overshoot += stryMutAct_9fa48("561") ? sent + accepted : (stryCov_9fa48("561"), sent - accepted));
      const decisions = stryMutAct_9fa48("562") ? synced?.decisions && verdict.decisions : (stryCov_9fa48("562"), (stryMutAct_9fa48("563") ? synced.decisions : (stryCov_9fa48("563"), synced?.decisions)) ?? verdict.decisions);
      const learned = this.learn(id, objectName, call, syncMs, decisions, stryMutAct_9fa48("564") ? accepted - (verdict.allowed ? call.cost : 0) : (stryCov_9fa48("564"), accepted + (verdict.allowed ? call.cost : 0)), own);
      if (stryMutAct_9fa48("567") ? synced === undefined : stryMutAct_9fa48("566") ? false : stryMutAct_9fa48("565") ? true : (stryCov_9fa48("565", "566", "567"), synced !== undefined)) {
        if (stryMutAct_9fa48("568")) {
          ;
        } else {
          stryCov_9fa48("568");
          setLease(learned, synced, startedAt, this.now());
        } // A strong decision is a round trip to the object too: the first lease is sized with it, not as if the object were here.
      } else if (stryMutAct_9fa48("571") ? learned.roundTripMs !== 0 : stryMutAct_9fa48("570") ? false : stryMutAct_9fa48("569") ? true : (stryCov_9fa48("569", "570", "571"), learned.roundTripMs === 0)) learned.roundTripMs = stryMutAct_9fa48("572") ? Math.min(0, this.now() - startedAt) : (stryCov_9fa48("572"), Math.max(0, stryMutAct_9fa48("573") ? this.now() + startedAt : (stryCov_9fa48("573"), this.now() - startedAt)));
      // When the hit was decided, not when it was asked: a slow object (a cold start) must not make a hot counter look cold.
      learned.lastHitAt = this.now();
      if (stryMutAct_9fa48("575") ? false : stryMutAct_9fa48("574") ? true : (stryCov_9fa48("574", "575"), own)) if (stryMutAct_9fa48("576")) {
        ;
      } else {
        stryCov_9fa48("576");
        this.syncer.keepSyncing(learned, defer, this.now());
      }
      return verdict;
    }
  }

  /**
   * Whether `call` would be decided here without the object at `now`
   * (it fits this isolate's budget on a fresh enough view of a hot
   * counter). Changes nothing; `decideLocally` with the same `now` and no
   * change in between then succeeds.
   *
   * @example
   * const now = Date.now();
   * if (table.canDecideLocally(call, 100, now)) table.decideLocally(call, 100, defer, now);
   */
  canDecideLocally(call: CounterCall, syncMs: number, now: number = this.now(), id: string = precountId(call)): boolean {
    if (stryMutAct_9fa48("577")) {
      {}
    } else {
      stryCov_9fa48("577");
      return stryMutAct_9fa48("580") ? this.localEntry(id, call, syncMs, now) === undefined : stryMutAct_9fa48("579") ? false : stryMutAct_9fa48("578") ? true : (stryCov_9fa48("578", "579", "580"), this.localEntry(id, call, syncMs, now) !== undefined);
    }
  }

  /**
   * Decide `call` at once from this isolate's budget, or return undefined
   * when it needs the object (`decide` then asks it). Synchronous, so a
   * request decided wholly here needs no decision timeout.
   *
   * @example
   * const verdict = table.decideLocally(call, 100, defer) ?? await table.decide(name, call, 100, defer);
   */
  decideLocally(call: CounterCall, syncMs: number, defer: Defer, now: number = this.now(), id: string = precountId(call)): CounterVerdict | undefined {
    if (stryMutAct_9fa48("581")) {
      {}
    } else {
      stryCov_9fa48("581");
      const entry = this.localEntry(id, call, syncMs, now);
      if (stryMutAct_9fa48("584") ? entry !== undefined : stryMutAct_9fa48("583") ? false : stryMutAct_9fa48("582") ? true : (stryCov_9fa48("582", "583", "584"), entry === undefined)) return undefined;
      stryMutAct_9fa48("585") ? entry.pending -= call.cost : (stryCov_9fa48("585"), entry.pending += call.cost);
      stryMutAct_9fa48("586") ? entry.hitsSinceSync -= call.cost : (stryCov_9fa48("586"), entry.hitsSinceSync += call.cost);
      if (stryMutAct_9fa48("587")) {
        ;
      } else {
        stryCov_9fa48("587");
        noteHit(entry, now);
      }
      entry.lastHitAt = now;
      stryMutAct_9fa48("588") ? this.stats.local -= 1 : (stryCov_9fa48("588"), this.stats.local += 1);
      // Budget spent: send now, so the object sees these hits before this isolate allows more.
      if (stryMutAct_9fa48("591") ? entry.pending + entry.inflight >= entry.budget || !entry.syncing : stryMutAct_9fa48("590") ? false : stryMutAct_9fa48("589") ? true : (stryCov_9fa48("589", "590", "591"), (stryMutAct_9fa48("594") ? entry.pending + entry.inflight < entry.budget : stryMutAct_9fa48("593") ? entry.pending + entry.inflight > entry.budget : stryMutAct_9fa48("592") ? true : (stryCov_9fa48("592", "593", "594"), (stryMutAct_9fa48("595") ? entry.pending - entry.inflight : (stryCov_9fa48("595"), entry.pending + entry.inflight)) >= entry.budget)) && (stryMutAct_9fa48("596") ? entry.syncing : (stryCov_9fa48("596"), !entry.syncing)))) defer(this.syncer.sync(entry, stryMutAct_9fa48("598") ? true : (stryCov_9fa48("598"), false), defer));
      if (stryMutAct_9fa48("599")) {
        ;
      } else {
        stryCov_9fa48("599");
        this.syncer.keepSyncing(entry, defer, now);
      }
      return localVerdict(entry, now);
    }
  }
  private localEntry(id: string, call: CounterCall, syncMs: number, now: number): Entry | undefined {
    if (stryMutAct_9fa48("600")) {
      {}
    } else {
      stryCov_9fa48("600");
      const entry = this.entries.get(id);
      return (stryMutAct_9fa48("603") ? entry !== undefined || canSpend(entry, call.cost, syncMs, now) : stryMutAct_9fa48("602") ? false : stryMutAct_9fa48("601") ? true : (stryCov_9fa48("601", "602", "603"), (stryMutAct_9fa48("605") ? entry === undefined : stryMutAct_9fa48("604") ? true : (stryCov_9fa48("604", "605"), entry !== undefined)) && canSpend(entry, call.cost, syncMs, now))) ? entry : undefined;
    }
  }

  /**
   * The view this isolate has of a counter: remaining per window after its
   * own unsynced hits (for tests and the convergence check).
   *
   * @example
   * table.view(call)?.map((d) => d.remaining);
   */
  view(call: CounterCall): readonly Decision[] | undefined {
    if (stryMutAct_9fa48("606")) {
      {}
    } else {
      stryCov_9fa48("606");
      const entry = this.entries.get(precountId(call));
      return (stryMutAct_9fa48("609") ? entry !== undefined : stryMutAct_9fa48("608") ? false : stryMutAct_9fa48("607") ? true : (stryCov_9fa48("607", "608", "609"), entry === undefined)) ? undefined : localVerdict(entry, this.now()).decisions;
    }
  }

  /** Number of counters this isolate is pre-counting. */
  get size(): number {
    if (stryMutAct_9fa48("610")) {
      {}
    } else {
      stryCov_9fa48("610");
      return this.entries.size;
    }
  }

  /** Take a strong decision's answer as the view (creating the entry); `own`: it counts as this isolate's activity on the counter. */
  private learn(id: string, objectName: string, call: CounterCall, syncMs: number, decisions: readonly Decision[], consumed: number, own: boolean): Entry {
    if (stryMutAct_9fa48("611")) {
      {}
    } else {
      stryCov_9fa48("611");
      const existing = this.entries.get(id);
      if (stryMutAct_9fa48("614") ? existing === undefined : stryMutAct_9fa48("613") ? false : stryMutAct_9fa48("612") ? true : (stryCov_9fa48("612", "613", "614"), existing !== undefined)) {
        if (stryMutAct_9fa48("615")) {
          {}
        } else {
          stryCov_9fa48("615");
          if (stryMutAct_9fa48("617") ? false : stryMutAct_9fa48("616") ? true : (stryCov_9fa48("616", "617"), own)) {
            if (stryMutAct_9fa48("618")) {
              {}
            } else {
              stryCov_9fa48("618");
              if (stryMutAct_9fa48("619")) {
                ;
              } else {
                stryCov_9fa48("619");
                refresh(existing, decisions, consumed, this.now());
              }
              stryMutAct_9fa48("620") ? existing.answered -= 1 : (stryCov_9fa48("620"), existing.answered += 1);
            }
          } else {
            if (stryMutAct_9fa48("621")) {
              {}
            } else {
              stryCov_9fa48("621");
              if (stryMutAct_9fa48("622")) {
                ;
              } else {
                stryCov_9fa48("622");
                setView(existing, decisions, this.now());
              }
              existing.lastMoved = stryMutAct_9fa48("623") ? true : (stryCov_9fa48("623"), false);
            }
          }
          return existing;
        }
      }
      const entry = newEntry(objectName, call, syncMs, decisions, this.now());
      if (stryMutAct_9fa48("627") ? this.entries.size < PRECOUNT_ENTRIES : stryMutAct_9fa48("626") ? this.entries.size > PRECOUNT_ENTRIES : stryMutAct_9fa48("625") ? false : stryMutAct_9fa48("624") ? true : (stryCov_9fa48("624", "625", "626", "627"), this.entries.size >= PRECOUNT_ENTRIES)) if (stryMutAct_9fa48("628")) {
        ;
      } else {
        stryCov_9fa48("628");
        this.evictIdle();
      }
      if (stryMutAct_9fa48("629")) {
        ;
      } else {
        stryCov_9fa48("629");
        this.entries.set(id, entry);
      }
      return entry;
    }
  }

  // Oldest first (Map order); an entry with hits still to send is kept so no hit is lost.
  private evictIdle(): void {
    if (stryMutAct_9fa48("630")) {
      {}
    } else {
      stryCov_9fa48("630");
      let scanned = 0;
      for (const [id, entry] of this.entries) {
        if (stryMutAct_9fa48("631")) {
          {}
        } else {
          stryCov_9fa48("631");
          if (stryMutAct_9fa48("634") ? entry.pending === 0 && entry.inflight === 0 || entry.chain === undefined : stryMutAct_9fa48("633") ? false : stryMutAct_9fa48("632") ? true : (stryCov_9fa48("632", "633", "634"), (stryMutAct_9fa48("636") ? entry.pending === 0 || entry.inflight === 0 : stryMutAct_9fa48("635") ? true : (stryCov_9fa48("635", "636"), (stryMutAct_9fa48("638") ? entry.pending !== 0 : stryMutAct_9fa48("637") ? true : (stryCov_9fa48("637", "638"), entry.pending === 0)) && (stryMutAct_9fa48("640") ? entry.inflight !== 0 : stryMutAct_9fa48("639") ? true : (stryCov_9fa48("639", "640"), entry.inflight === 0)))) && (stryMutAct_9fa48("642") ? entry.chain !== undefined : stryMutAct_9fa48("641") ? true : (stryCov_9fa48("641", "642"), entry.chain === undefined)))) if (stryMutAct_9fa48("643")) {
            ;
          } else {
            stryCov_9fa48("643");
            this.entries.delete(id);
          }
          if (stryMutAct_9fa48("646") ? ++scanned >= 64 && this.entries.size < PRECOUNT_ENTRIES : stryMutAct_9fa48("645") ? false : stryMutAct_9fa48("644") ? true : (stryCov_9fa48("644", "645", "646"), (stryMutAct_9fa48("649") ? ++scanned < 64 : stryMutAct_9fa48("648") ? ++scanned > 64 : stryMutAct_9fa48("647") ? false : (stryCov_9fa48("647", "648", "649"), (stryMutAct_9fa48("650") ? --scanned : (stryCov_9fa48("650"), ++scanned)) >= 64)) || (stryMutAct_9fa48("653") ? this.entries.size >= PRECOUNT_ENTRIES : stryMutAct_9fa48("652") ? this.entries.size <= PRECOUNT_ENTRIES : stryMutAct_9fa48("651") ? false : (stryCov_9fa48("651", "652", "653"), this.entries.size < PRECOUNT_ENTRIES)))) return;
        }
      }
    }
  }
}