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
import type { CounterVerdict, SendBatch } from "../stored/wire-calls.ts";
import type { Defer } from "../http/defer.ts";
import { endSync, failSync, startSync } from "../durable/counters/leases/lease-holder.ts";
import type { HotHints } from "./hot-hints.ts";
import { precountId, refresh, setLease, syncCall, type Chain, type Entry, type PrecountStats } from "./precount-view.ts";

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

  /** Hot counters' hints (hot-hints.ts): a sync's answer on a counter pre-counted on a hint renews or ends it. */
  private readonly hints: HotHints | undefined;

  constructor(send: SendBatch, now: () => number, stats: PrecountStats, holder: string = crypto.randomUUID(), hints?: HotHints) {
    this.send = send;
    this.now = now;
    this.stats = stats;
    this.holder = holder;
    this.hints = hints;
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
    const current = entry.chain;
    if (current !== undefined && now - current.hostAt < CHAIN_HANDOFF_MS) return;
    // A new chain counts a move the answer that started it showed (a strong decision's), so it reads twice.
    const chain: Chain =
      current !== undefined
        ? { ...current, hostAt: now }
        : {
            hostAt: now,
            dueAt: nextSyncAt(now, entry.syncMs),
            movedBefore: entry.moved - (entry.lastMoved ? 1 : 0),
            movedLast: entry.moved,
            answeredAtLast: entry.answered,
          };
    entry.chain = chain;
    defer(this.runChain(entry, chain, defer));
  }

  /**
   * Send unsynced hits, or read the counter at cost 0 when there are none,
   * and refresh the view; returns the hits sent.
   *
   * @example
   * defer(syncer.sync(entry, false, defer)); // a budget flush
   */
  async sync(entry: Entry, fromChain: boolean, defer: Defer): Promise<number> {
    // One sync at a time per counter (see Entry.syncing): the hits wait for the next.
    if (entry.syncing) return 0;
    const hits = startSync(entry);
    this.stats.flushes += 1;
    const sentAt = this.now();
    let verdict: CounterVerdict;
    try {
      const probe = syncCall(entry, hits, this.holder, sentAt);
      [verdict] = await this.send(entry.objectName, [probe], defer);
    } catch {
      // The object is unreachable: keep the hits for the next sync rather than lose them (a lease given
      // back stays given back: the object frees it when it expires).
      failSync(entry, hits);
      return hits;
    }
    const accepted = endSync(entry, hits, verdict);
    if (hits > 0) {
      this.stats.overshoot += hits - accepted;
      if (!fromChain) entry.answered += 1;
    }
    refresh(entry, verdict.decisions, accepted, this.now());
    setLease(entry, verdict, sentAt, this.now());
    if (entry.auto) learnHint(entry, verdict, this.hints);
    return hits;
  }

  /** The refresh chain: a sync every `sync_ms` (start to start) until quiet or `CHAIN_MAX_MS` after its host started it. */
  private async runChain(entry: Entry, chain: Chain, defer: Defer): Promise<void> {
    for (;;) {
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
      const quiet =
        sent === 0 &&
        entry.moved === chain.movedBefore &&
        entry.answered === chain.answeredAtLast &&
        entry.pending === 0 &&
        entry.inflight === 0 &&
        entry.budget === 0;
      chain.movedBefore = chain.movedLast;
      chain.movedLast = entry.moved;
      chain.answeredAtLast = answeredAtStart;
      if (quiet || this.now() - chain.hostAt >= CHAIN_MAX_MS) {
        entry.chain = undefined;
        return;
      }
    }
  }
}

/**
 * Take an object's answer on a counter pre-counted on its hint: the sync
 * period it names now (the object lengthens it as more isolates sync), or,
 * no longer hot, the hint is dropped and the counter's next hits go to the
 * object (the lease left is given back by the chain's next idle sync).
 *
 * @example
 * if (entry.auto) learnHint(entry, verdict, hints);
 */
export function learnHint(entry: Entry, verdict: CounterVerdict, hints: HotHints | undefined): void {
  hints?.learn(precountId(entry.call), verdict);
  if (verdict.hot !== undefined) entry.syncMs = hints?.syncMsOf(precountId(entry.call)) ?? entry.syncMs;
}

/**
 * The next sync of a chain: the first multiple of `syncMs` after `now`, so
 * at most `syncMs` away. Every chain of an isolate with the same `sync_ms`
 * wakes at the same instants, so the syncs for counters in one object meet
 * in the coalescer and travel in one or two RPCs instead of one each.
 */
function nextSyncAt(now: number, syncMs: number): number {
  return (Math.floor(now / syncMs) + 1) * syncMs;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
