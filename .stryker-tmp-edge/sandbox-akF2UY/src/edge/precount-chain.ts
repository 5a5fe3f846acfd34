/**
 * Refresh chains of edge pre-counting (precount.ts). For each counter it
 * pre-counts, an isolate runs at most one background loop, hosted by a
 * request's `defer` (ctx.waitUntil), that syncs every `sync_ms` (S, from
 * the start of one sync to the start of the next). A sync sends the hits
 * taken since the previous one, or reads the counter at cost 0 if there are
 * none, and replaces the view. A counter is decided locally only from a
 * lease, which only a counter hot here gets (its hits come more than twice
 * per S; see `isHot`). A hit decided locally starts the chain if none runs, and so
 * does a strong decision on a hot counter whose view was fresh (synced
 * within 2 × S + 1 s) or one that carried unsent hits; a first strong
 * decision (or one after a longer pause) only learns the view. An answer
 * "moved" the count when some window's remaining is below the previous
 * answer's minus this isolate's hits the object took in between: someone
 * else's hits. Quota coming back (refill, a new window) does not count: it
 * only makes an old view conservative, and following a refill would mean a
 * read per sync for a whole window.
 * The chain stops
 * - at a sync that sent no hits and left it no lease (one after a sync
 *   period without hits gives the lease back), when no answer since the end of the sync
 *   before the previous one moved the count (it stood still for two sync
 *   periods) and no call carrying this isolate's hits outside the chain (a
 *   strong decision, a budget flush) was answered since the previous sync
 *   started (this read comes at least S after them). After the isolate's
 *   last hits on an otherwise idle counter that is one cost-0 read after
 *   the sync that sent them; after a move, two; or
 * - at its first sync `CHAIN_MAX_MS` (25 s) or more after its host request
 *   started it, whatever the count does: Workers cancel waitUntil work 30 s
 *   after the response, so a chain cannot outlive its host. A hit moves the
 *   chain into its own request once the host is `CHAIN_HANDOFF_MS` (1 s)
 *   old (the old loop returns at its next wake-up without syncing), so a
 *   chain whose count keeps moving runs at least 24 s after this isolate's
 *   own last hit.
 *
 * Convergence guarantee. A hit is sent at the chain's next sync, at most S
 * after it was taken (or one object round trip, if a sync takes longer
 * than S). So when traffic on a counter stops at T, the object's count is
 * final by T + S plus a one-way trip, and every isolate whose chain still
 * runs then reads it at its next sync: its view equals the object's count
 * by T + 2 × S plus one object round trip and timer lateness. An isolate's
 * chain still runs then if it took a hit on the counter (locally, or
 * strongly on a fresh view) at most 24 s − 2 × S before T and, from that
 * hit until the count became final, the object's count never stood still,
 * apart from this isolate's own hits, for two sync periods (2 × S, give or
 * take a round trip). That holds when the counter's allowed traffic, over
 * all isolates, has no gap of S or more, since each hit reaches the object
 * within S of being taken (consecutive moves are then less than 2 × S
 * apart). An isolate that stopped earlier keeps the view it last read
 * until its next hit on the counter, which syncs again (strongly, if the
 * view is no longer fresh).
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
import type { Defer } from "../http/defer.ts";
import { refresh, setLease, syncCall, type Chain, type Entry, type PrecountStats } from "./precount-view.ts";

/** A refresh chain ends this long after the request hosting it started it (Workers cancel waitUntil work 30 s after the response). */
export const CHAIN_MAX_MS = 25_000;

/** A hit moves the refresh chain into its own request when the current host started it at least this long ago. */
export const CHAIN_HANDOFF_MS = 1_000;

/**
 * Syncs pre-counted entries with their objects: on demand (a spent budget)
 * and in refresh chains.
 *
 * @example
 * const syncer = new Syncer(send, () => Date.now(), stats); // a random holder id for this isolate
 * syncer.keepSyncing(entry, (p) => ctx.waitUntil(p), Date.now());
 */
export class Syncer {
  private readonly send: SendBatch;
  private readonly now: () => number;
  private readonly stats: PrecountStats;
  /** This isolate, as the objects' leases name it. */
  readonly holder: string;
  constructor(send: SendBatch, now: () => number, stats: PrecountStats, holder: string = crypto.randomUUID()) {
    if (stryMutAct_9fa48("232")) {
      {}
    } else {
      stryCov_9fa48("232");
      this.send = send;
      this.now = now;
      this.stats = stats;
      this.holder = holder;
    }
  }

  /**
   * Make sure the counter's refresh chain runs: start it in this request,
   * or move it here if the request hosting it started it `CHAIN_HANDOFF_MS`
   * ago or more (so it never outlives its host's waitUntil). The retired
   * chain makes no further sync: it returns when its current wait or sync
   * ends. The new one keeps the old one's next due time.
   *
   * @example
   * syncer.keepSyncing(entry, defer, Date.now());
   */
  keepSyncing(entry: Entry, defer: Defer, now: number): void {
    if (stryMutAct_9fa48("233")) {
      {}
    } else {
      stryCov_9fa48("233");
      const current = entry.chain;
      if (stryMutAct_9fa48("236") ? current !== undefined || now - current.hostAt < CHAIN_HANDOFF_MS : stryMutAct_9fa48("235") ? false : stryMutAct_9fa48("234") ? true : (stryCov_9fa48("234", "235", "236"), (stryMutAct_9fa48("238") ? current === undefined : stryMutAct_9fa48("237") ? true : (stryCov_9fa48("237", "238"), current !== undefined)) && (stryMutAct_9fa48("241") ? now - current.hostAt >= CHAIN_HANDOFF_MS : stryMutAct_9fa48("240") ? now - current.hostAt <= CHAIN_HANDOFF_MS : stryMutAct_9fa48("239") ? true : (stryCov_9fa48("239", "240", "241"), (stryMutAct_9fa48("242") ? now + current.hostAt : (stryCov_9fa48("242"), now - current.hostAt)) < CHAIN_HANDOFF_MS)))) return;
      // A new chain counts a move the answer that started it showed (a strong decision's), so it reads twice.
      const chain: Chain = (stryMutAct_9fa48("245") ? current === undefined : stryMutAct_9fa48("244") ? false : stryMutAct_9fa48("243") ? true : (stryCov_9fa48("243", "244", "245"), current !== undefined)) ? stryMutAct_9fa48("246") ? {} : (stryCov_9fa48("246"), {
        ...current,
        hostAt: now
      }) : stryMutAct_9fa48("247") ? {} : (stryCov_9fa48("247"), {
        hostAt: now,
        dueAt: nextSyncAt(now, entry.syncMs),
        movedBefore: stryMutAct_9fa48("248") ? entry.moved + (entry.lastMoved ? 1 : 0) : (stryCov_9fa48("248"), entry.moved - (entry.lastMoved ? 1 : 0)),
        movedLast: entry.moved,
        answeredAtLast: entry.answered
      });
      entry.chain = chain;
      if (stryMutAct_9fa48("249")) {
        ;
      } else {
        stryCov_9fa48("249");
        defer(this.runChain(entry, chain, defer));
      }
    }
  }

  /**
   * Send unsynced hits, or read the counter at cost 0 when there are none,
   * and refresh the view; returns the hits sent.
   *
   * @example
   * defer(syncer.sync(entry, false, defer)); // a budget flush
   */
  async sync(entry: Entry, fromChain: boolean, defer: Defer): Promise<number> {
    if (stryMutAct_9fa48("250")) {
      {}
    } else {
      stryCov_9fa48("250");
      // One sync at a time per counter (see Entry.syncing): the hits wait for the next.
      if (stryMutAct_9fa48("252") ? false : stryMutAct_9fa48("251") ? true : (stryCov_9fa48("251", "252"), entry.syncing)) return 0;
      entry.syncing = stryMutAct_9fa48("253") ? false : (stryCov_9fa48("253"), true);
      try {
        if (stryMutAct_9fa48("254")) {
          {}
        } else {
          stryCov_9fa48("254");
          return await this.syncNow(entry, fromChain, defer);
        }
      } finally {
        if (stryMutAct_9fa48("255")) {
          {}
        } else {
          stryCov_9fa48("255");
          entry.syncing = stryMutAct_9fa48("256") ? true : (stryCov_9fa48("256"), false);
        }
      }
    }
  }
  private async syncNow(entry: Entry, fromChain: boolean, defer: Defer): Promise<number> {
    if (stryMutAct_9fa48("257")) {
      {}
    } else {
      stryCov_9fa48("257");
      const hits = entry.pending;
      entry.pending = 0;
      stryMutAct_9fa48("258") ? entry.inflight -= hits : (stryCov_9fa48("258"), entry.inflight += hits);
      stryMutAct_9fa48("259") ? this.stats.flushes -= 1 : (stryCov_9fa48("259"), this.stats.flushes += 1);
      const sentAt = this.now();
      const probe = syncCall(entry, hits, this.holder, sentAt);
      let verdict: CounterVerdict;
      try {
        if (stryMutAct_9fa48("260")) {
          {}
        } else {
          stryCov_9fa48("260");
          [verdict] = await this.send(entry.objectName, stryMutAct_9fa48("261") ? [] : (stryCov_9fa48("261"), [probe]), defer);
        }
      } catch {
        if (stryMutAct_9fa48("262")) {
          {}
        } else {
          stryCov_9fa48("262");
          // The object is unreachable: keep the hits for the next sync rather than lose them (a lease given
          // back stays given back: the object frees it when it expires).
          stryMutAct_9fa48("263") ? entry.inflight += hits : (stryCov_9fa48("263"), entry.inflight -= hits);
          stryMutAct_9fa48("264") ? entry.pending -= hits : (stryCov_9fa48("264"), entry.pending += hits);
          return hits;
        }
      }
      stryMutAct_9fa48("265") ? entry.inflight += hits : (stryCov_9fa48("265"), entry.inflight -= hits);
      const accepted = (stryMutAct_9fa48("269") ? hits <= 0 : stryMutAct_9fa48("268") ? hits >= 0 : stryMutAct_9fa48("267") ? false : stryMutAct_9fa48("266") ? true : (stryCov_9fa48("266", "267", "268", "269"), hits > 0)) ? stryMutAct_9fa48("270") ? verdict.accepted && hits : (stryCov_9fa48("270"), verdict.accepted ?? hits) : 0;
      if (stryMutAct_9fa48("274") ? hits <= 0 : stryMutAct_9fa48("273") ? hits >= 0 : stryMutAct_9fa48("272") ? false : stryMutAct_9fa48("271") ? true : (stryCov_9fa48("271", "272", "273", "274"), hits > 0)) {
        if (stryMutAct_9fa48("275")) {
          {}
        } else {
          stryCov_9fa48("275");
          stryMutAct_9fa48("276") ? this.stats.overshoot -= hits - accepted : (stryCov_9fa48("276"), this.stats.overshoot += stryMutAct_9fa48("277") ? hits + accepted : (stryCov_9fa48("277"), hits - accepted));
          if (stryMutAct_9fa48("280") ? false : stryMutAct_9fa48("279") ? true : stryMutAct_9fa48("278") ? fromChain : (stryCov_9fa48("278", "279", "280"), !fromChain)) stryMutAct_9fa48("281") ? entry.answered -= 1 : (stryCov_9fa48("281"), entry.answered += 1);
        }
      }
      if (stryMutAct_9fa48("282")) {
        ;
      } else {
        stryCov_9fa48("282");
        refresh(entry, verdict.decisions, accepted, this.now());
      }
      if (stryMutAct_9fa48("283")) {
        ;
      } else {
        stryCov_9fa48("283");
        setLease(entry, verdict, sentAt, this.now());
      }
      return hits;
    }
  }

  /** The refresh chain: a sync every `sync_ms` (start to start) until quiet or `CHAIN_MAX_MS` after its host started it. */
  private async runChain(entry: Entry, chain: Chain, defer: Defer): Promise<void> {
    if (stryMutAct_9fa48("284")) {
      {}
    } else {
      stryCov_9fa48("284");
      if (stryMutAct_9fa48("285")) {
        for (; false;) {
          await sleep(Math.max(0, chain.dueAt - this.now()));
          if (entry.chain !== chain) return;
          chain.dueAt = nextSyncAt(this.now(), entry.syncMs);
          const answeredAtStart = entry.answered;
          const sent = await this.sync(entry, true, defer);
          if (entry.chain !== chain) return;
          // Quiet: this sync sent nothing; no answer since the sync before last ended showed the count move
          // (but by this isolate's hits), i.e. it stood still for two sync periods; and no call carrying this
          // isolate's hits was answered since the last sync started, so this read came a sync period after
          // them. Hits taken since, or sent and not yet answered, keep the chain going.
          // It holds no lease either: quota set aside for it would otherwise wait for the lease to expire.
          const quiet = sent === 0 && entry.moved === chain.movedBefore && entry.answered === chain.answeredAtLast && entry.pending === 0 && entry.inflight === 0 && entry.budget === 0;
          chain.movedBefore = chain.movedLast;
          chain.movedLast = entry.moved;
          chain.answeredAtLast = answeredAtStart;
          if (quiet || this.now() - chain.hostAt >= CHAIN_MAX_MS) {
            entry.chain = undefined;
            return;
          }
        }
      } else {
        stryCov_9fa48("285");
        for (;;) {
          if (stryMutAct_9fa48("286")) {
            {}
          } else {
            stryCov_9fa48("286");
            await sleep(stryMutAct_9fa48("287") ? Math.min(0, chain.dueAt - this.now()) : (stryCov_9fa48("287"), Math.max(0, stryMutAct_9fa48("288") ? chain.dueAt + this.now() : (stryCov_9fa48("288"), chain.dueAt - this.now()))));
            if (stryMutAct_9fa48("291") ? entry.chain === chain : stryMutAct_9fa48("290") ? false : stryMutAct_9fa48("289") ? true : (stryCov_9fa48("289", "290", "291"), entry.chain !== chain)) return;
            chain.dueAt = nextSyncAt(this.now(), entry.syncMs);
            const answeredAtStart = entry.answered;
            const sent = await this.sync(entry, stryMutAct_9fa48("292") ? false : (stryCov_9fa48("292"), true), defer);
            if (stryMutAct_9fa48("295") ? entry.chain === chain : stryMutAct_9fa48("294") ? false : stryMutAct_9fa48("293") ? true : (stryCov_9fa48("293", "294", "295"), entry.chain !== chain)) return;
            // Quiet: this sync sent nothing; no answer since the sync before last ended showed the count move
            // (but by this isolate's hits), i.e. it stood still for two sync periods; and no call carrying this
            // isolate's hits was answered since the last sync started, so this read came a sync period after
            // them. Hits taken since, or sent and not yet answered, keep the chain going.
            // It holds no lease either: quota set aside for it would otherwise wait for the lease to expire.
            const quiet = stryMutAct_9fa48("298") ? sent === 0 && entry.moved === chain.movedBefore && entry.answered === chain.answeredAtLast && entry.pending === 0 && entry.inflight === 0 || entry.budget === 0 : stryMutAct_9fa48("297") ? false : stryMutAct_9fa48("296") ? true : (stryCov_9fa48("296", "297", "298"), (stryMutAct_9fa48("300") ? sent === 0 && entry.moved === chain.movedBefore && entry.answered === chain.answeredAtLast && entry.pending === 0 || entry.inflight === 0 : stryMutAct_9fa48("299") ? true : (stryCov_9fa48("299", "300"), (stryMutAct_9fa48("302") ? sent === 0 && entry.moved === chain.movedBefore && entry.answered === chain.answeredAtLast || entry.pending === 0 : stryMutAct_9fa48("301") ? true : (stryCov_9fa48("301", "302"), (stryMutAct_9fa48("304") ? sent === 0 && entry.moved === chain.movedBefore || entry.answered === chain.answeredAtLast : stryMutAct_9fa48("303") ? true : (stryCov_9fa48("303", "304"), (stryMutAct_9fa48("306") ? sent === 0 || entry.moved === chain.movedBefore : stryMutAct_9fa48("305") ? true : (stryCov_9fa48("305", "306"), (stryMutAct_9fa48("308") ? sent !== 0 : stryMutAct_9fa48("307") ? true : (stryCov_9fa48("307", "308"), sent === 0)) && (stryMutAct_9fa48("310") ? entry.moved !== chain.movedBefore : stryMutAct_9fa48("309") ? true : (stryCov_9fa48("309", "310"), entry.moved === chain.movedBefore)))) && (stryMutAct_9fa48("312") ? entry.answered !== chain.answeredAtLast : stryMutAct_9fa48("311") ? true : (stryCov_9fa48("311", "312"), entry.answered === chain.answeredAtLast)))) && (stryMutAct_9fa48("314") ? entry.pending !== 0 : stryMutAct_9fa48("313") ? true : (stryCov_9fa48("313", "314"), entry.pending === 0)))) && (stryMutAct_9fa48("316") ? entry.inflight !== 0 : stryMutAct_9fa48("315") ? true : (stryCov_9fa48("315", "316"), entry.inflight === 0)))) && (stryMutAct_9fa48("318") ? entry.budget !== 0 : stryMutAct_9fa48("317") ? true : (stryCov_9fa48("317", "318"), entry.budget === 0)));
            chain.movedBefore = chain.movedLast;
            chain.movedLast = entry.moved;
            chain.answeredAtLast = answeredAtStart;
            if (stryMutAct_9fa48("321") ? quiet && this.now() - chain.hostAt >= CHAIN_MAX_MS : stryMutAct_9fa48("320") ? false : stryMutAct_9fa48("319") ? true : (stryCov_9fa48("319", "320", "321"), quiet || (stryMutAct_9fa48("324") ? this.now() - chain.hostAt < CHAIN_MAX_MS : stryMutAct_9fa48("323") ? this.now() - chain.hostAt > CHAIN_MAX_MS : stryMutAct_9fa48("322") ? false : (stryCov_9fa48("322", "323", "324"), (stryMutAct_9fa48("325") ? this.now() + chain.hostAt : (stryCov_9fa48("325"), this.now() - chain.hostAt)) >= CHAIN_MAX_MS)))) {
              if (stryMutAct_9fa48("326")) {
                {}
              } else {
                stryCov_9fa48("326");
                entry.chain = undefined;
                return;
              }
            }
          }
        }
      }
    }
  }
}

/**
 * The next sync of a chain: the first multiple of `syncMs` after `now`, so
 * at most `syncMs` away. Every chain of an isolate with the same `sync_ms`
 * wakes at the same instants, so the syncs for counters in one object meet
 * in the coalescer and travel in one or two RPCs instead of one each.
 */
function nextSyncAt(now: number, syncMs: number): number {
  if (stryMutAct_9fa48("327")) {
    {}
  } else {
    stryCov_9fa48("327");
    return stryMutAct_9fa48("328") ? (Math.floor(now / syncMs) + 1) / syncMs : (stryCov_9fa48("328"), (stryMutAct_9fa48("329") ? Math.floor(now / syncMs) - 1 : (stryCov_9fa48("329"), Math.floor(stryMutAct_9fa48("330") ? now * syncMs : (stryCov_9fa48("330"), now / syncMs)) + 1)) * syncMs);
  }
}
function sleep(ms: number): Promise<void> {
  if (stryMutAct_9fa48("331")) {
    {}
  } else {
    stryCov_9fa48("331");
    return new Promise(stryMutAct_9fa48("332") ? () => undefined : (stryCov_9fa48("332"), resolve => setTimeout(resolve, ms)));
  }
}