/**
 * Edge pre-counting (`precount`, SPEC section 6). An isolate decides a
 * counter locally from the remaining quota the object last reported minus
 * its own unsynced hits, and sends those hits to the object in the
 * background at least every `sync_ms`. To bound how far past the limit
 * several isolates can go together, an isolate only spends a share
 * (`PRECOUNT_SHARE`) of the remaining quota it last saw between two syncs;
 * when that budget is spent or rounds down to zero it flushes and decides
 * strongly, through the object, so decisions near the limit are exact.
 * README "Edge pre-counting" derives the bound.
 *
 * Refresh chain. For each counter it pre-counts, an isolate runs at most
 * one background loop, hosted by a request's `defer` (ctx.waitUntil), that
 * syncs every `sync_ms` (S, from the start of one sync to the start of the
 * next). A sync sends the hits taken since the previous one, or reads the
 * counter at cost 0 if there are none, and replaces the view. A counter is
 * decided locally only while it is hot here (its previous hit in this
 * isolate came less than S ago; see `isHot`). A hit decided locally starts
 * the chain if none runs, and so does a strong decision on a hot counter
 * whose view was fresh (synced within 2 × S + 1 s) or one that carried
 * unsent hits; a first strong decision (or one after a longer pause) only
 * learns the view. An answer "moved" the count when some window's
 * remaining is below the previous answer's minus this isolate's hits the
 * object took in between: someone else's hits. Quota coming back (refill,
 * a new window) does not count: it only makes an old view conservative,
 * and following a refill would mean a read per sync for a whole window.
 * The chain stops
 * - at a sync that sent no hits, when no answer since the end of the sync
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
import type { Decision } from "../algorithms/types.ts";
import type { CounterCall, CounterVerdict } from "../durable/protocol.ts";

/** Share of the last-seen remaining quota an isolate may spend between syncs. */
export const PRECOUNT_SHARE = 1 / 8;

/** Counters an isolate pre-counts at once; idle ones beyond this are forgotten (they are re-learned strongly). */
export const PRECOUNT_ENTRIES = 10_000;

/** A refresh chain ends this long after the request hosting it started it (Workers cancel waitUntil work 30 s after the response). */
export const CHAIN_MAX_MS = 25_000;

/** A hit moves the refresh chain into its own request when the current host started it at least this long ago. */
export const CHAIN_HANDOFF_MS = 1_000;

/** Sends calls owned by one object and returns one verdict per call. */
export type Send = (objectName: string, calls: readonly CounterCall[]) => Promise<CounterVerdict[]>;

interface Entry {
  readonly objectName: string;
  readonly call: CounterCall;
  readonly syncMs: number;
  /** Per-window decisions as of `syncedAt` (after everything this isolate sent so far). */
  snapshot: readonly Decision[];
  syncedAt: number;
  /** Hits this isolate may allow on its own against the current snapshot. */
  budget: number;
  /** Hits allowed here and not yet sent. */
  pending: number;
  /** Hits sent to the object whose answer has not arrived: they still count against the budget. */
  inflight: number;
  /** The refresh chain, while one runs. */
  chain: Chain | undefined;
  /** Answers so far that showed the count moved by more than this isolate's own hits. */
  moved: number;
  /** Whether the latest answer did. */
  lastMoved: boolean;
  /** Answers so far, outside the refresh chain, to calls carrying this isolate's hits (strong decisions, budget flushes). */
  answered: number;
  /** When this isolate last took a hit on the counter (locally or strongly). */
  lastHitAt: number;
}

/** One isolate's background sync loop for one counter. */
interface Chain {
  /** When the request whose `defer` hosts this chain started it. */
  readonly hostAt: number;
  /** When the next sync is due (`now` clock). */
  dueAt: number;
  /** `entry.moved` after the sync before last (or as of the chain's start), and after the last sync. */
  movedBefore: number;
  movedLast: number;
  /** `entry.answered` when the last sync started (or as of the chain's start). */
  answeredAtLast: number;
}

/** Counts for tests, metrics and the bench. */
export interface PrecountStats {
  local: number;
  strong: number;
  flushes: number;
  /** Hits this isolate allowed that the object could not fit any more: the overshoot. */
  overshoot: number;
}

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
  private readonly send: Send;
  private readonly now: () => number;
  readonly stats: PrecountStats = { local: 0, strong: 0, flushes: 0, overshoot: 0 };

  constructor(send: Send, now: () => number) {
    this.send = send;
    this.now = now;
  }

  /**
   * Decide one call (cost ≥ 1) for a counter with precount enabled.
   *
   * @example
   * const verdict = await table.decide("api/shard/3", call, 100, defer);
   */
  async decide(objectName: string, call: CounterCall, syncMs: number, defer: (work: Promise<unknown>) => void): Promise<CounterVerdict> {
    const local = this.decideLocally(call, syncMs, defer);
    if (local !== undefined) return local;
    const id = precountId(call);
    const entry = this.entries.get(id);
    // A hit on a counter this isolate is pre-counting keeps its refresh chain going; a first (or long-paused) one only learns.
    const startedAt = this.now();
    const fresh = entry !== undefined && startedAt - entry.syncedAt < freshFor(syncMs);
    const hot = entry !== undefined && isHot(entry, startedAt);
    this.stats.strong += 1;
    const calls: CounterCall[] = [];
    const carried = entry?.pending ?? 0;
    if (entry !== undefined && carried > 0) {
      calls.push({ ...entry.call, cost: carried, partial: true });
      entry.pending = 0;
      entry.inflight += carried;
    }
    calls.push(call);
    let verdicts;
    try {
      verdicts = await this.send(objectName, calls);
    } finally {
      if (entry !== undefined) entry.inflight -= carried;
    }
    const accepted = carried > 0 ? (verdicts[0].accepted ?? carried) : 0;
    if (carried > 0) this.stats.overshoot += carried - accepted;
    const verdict = verdicts[verdicts.length - 1];
    // Only a counter hot in this isolate keeps a refresh chain: on one hit now and then, syncing would cost more than it saves.
    const own = carried > 0 || (fresh && hot);
    const learned = this.learn(id, objectName, call, syncMs, verdict.decisions, accepted + (verdict.allowed ? call.cost : 0), own);
    // When the hit was decided, not when it was asked: a slow object (a cold start) must not make a hot counter look cold.
    learned.lastHitAt = this.now();
    if (own) this.keepSyncing(learned, defer, this.now());
    return verdict;
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
    return this.localEntry(id, call, syncMs, now) !== undefined;
  }

  /**
   * Decide `call` at once from this isolate's budget, or return undefined
   * when it needs the object (`decide` then asks it). Synchronous, so a
   * request decided wholly here needs no decision timeout.
   *
   * @example
   * const verdict = table.decideLocally(call, 100, defer) ?? await table.decide(name, call, 100, defer);
   */
  decideLocally(call: CounterCall, syncMs: number, defer: (work: Promise<unknown>) => void, now: number = this.now(), id: string = precountId(call)): CounterVerdict | undefined {
    const entry = this.localEntry(id, call, syncMs, now);
    if (entry === undefined) return undefined;
    entry.pending += call.cost;
    entry.lastHitAt = now;
    this.stats.local += 1;
    // Budget spent: send now, so the object sees these hits before this isolate allows more.
    if (entry.pending + entry.inflight >= entry.budget) defer(this.sync(entry, false));
    this.keepSyncing(entry, defer, now);
    return localVerdict(entry, now);
  }

  private localEntry(id: string, call: CounterCall, syncMs: number, now: number): Entry | undefined {
    const entry = this.entries.get(id);
    if (entry === undefined || entry.pending + entry.inflight + call.cost > entry.budget || now - entry.syncedAt >= freshFor(syncMs) || !isHot(entry, now)) return undefined;
    return entry;
  }

  /**
   * The view this isolate has of a counter: remaining per window after its
   * own unsynced hits (for tests and the convergence check).
   *
   * @example
   * table.view(call)?.map((d) => d.remaining);
   */
  view(call: CounterCall): readonly Decision[] | undefined {
    const entry = this.entries.get(precountId(call));
    return entry === undefined ? undefined : localVerdict(entry, this.now()).decisions;
  }

  /**
   * Make sure the counter's refresh chain runs: start it in this request,
   * or move it here if the request hosting it started it `CHAIN_HANDOFF_MS`
   * ago or more (so it never outlives its host's waitUntil). The retired
   * chain makes no further sync: it returns when its current wait or sync
   * ends. The new one keeps the old one's next due time.
   */
  private keepSyncing(entry: Entry, defer: (work: Promise<unknown>) => void, now: number): void {
    const current = entry.chain;
    if (current !== undefined && now - current.hostAt < CHAIN_HANDOFF_MS) return;
    // A new chain counts a move the answer that started it showed (a strong decision's), so it reads twice.
    const chain: Chain = current !== undefined
      ? { ...current, hostAt: now }
      : { hostAt: now, dueAt: nextSyncAt(now, entry.syncMs), movedBefore: entry.moved - (entry.lastMoved ? 1 : 0), movedLast: entry.moved, answeredAtLast: entry.answered };
    entry.chain = chain;
    defer(this.runChain(entry, chain));
  }

  /** The refresh chain: a sync every `sync_ms` (start to start) until quiet or `CHAIN_MAX_MS` after its host started it. */
  private async runChain(entry: Entry, chain: Chain): Promise<void> {
    for (;;) {
      await sleep(Math.max(0, chain.dueAt - this.now()));
      if (entry.chain !== chain) return;
      chain.dueAt = nextSyncAt(this.now(), entry.syncMs);
      const answeredAtStart = entry.answered;
      const sent = await this.sync(entry, true);
      if (entry.chain !== chain) return;
      // Quiet: this sync sent nothing; no answer since the sync before last ended showed the count move
      // (but by this isolate's hits), i.e. it stood still for two sync periods; and no call carrying this
      // isolate's hits was answered since the last sync started, so this read came a sync period after
      // them. Hits taken since, or sent and not yet answered, keep the chain going.
      const quiet = sent === 0 && entry.moved === chain.movedBefore && entry.answered === chain.answeredAtLast && entry.pending === 0 && entry.inflight === 0;
      chain.movedBefore = chain.movedLast;
      chain.movedLast = entry.moved;
      chain.answeredAtLast = answeredAtStart;
      if (quiet || this.now() - chain.hostAt >= CHAIN_MAX_MS) {
        entry.chain = undefined;
        return;
      }
    }
  }

  /** Send unsynced hits, or read the counter at cost 0 when there are none, and refresh the view; returns the hits sent. */
  private async sync(entry: Entry, fromChain: boolean): Promise<number> {
    const hits = entry.pending;
    entry.pending = 0;
    entry.inflight += hits;
    this.stats.flushes += 1;
    const probe: CounterCall = hits > 0 ? { ...entry.call, cost: hits, partial: true } : { ...entry.call, cost: 0 };
    let verdict: CounterVerdict;
    try {
      [verdict] = await this.send(entry.objectName, [probe]);
    } catch {
      // The object is unreachable: keep the hits for the next sync rather than lose them.
      entry.inflight -= hits;
      entry.pending += hits;
      return hits;
    }
    entry.inflight -= hits;
    const accepted = hits > 0 ? (verdict.accepted ?? hits) : 0;
    if (hits > 0) {
      this.stats.overshoot += hits - accepted;
      if (!fromChain) entry.answered += 1;
    }
    this.refresh(entry, verdict.decisions, accepted);
    return hits;
  }

  /** Take a strong decision's answer as the view (creating the entry); `own`: it counts as this isolate's activity on the counter. */
  private learn(id: string, objectName: string, call: CounterCall, syncMs: number, decisions: readonly Decision[], consumed: number, own: boolean): Entry {
    const existing = this.entries.get(id);
    if (existing !== undefined) {
      if (own) {
        this.refresh(existing, decisions, consumed);
        existing.answered += 1;
      } else {
        this.setView(existing, decisions);
        existing.lastMoved = false;
      }
      return existing;
    }
    const entry: Entry = { objectName, call: { ...call, cost: 1 }, syncMs, snapshot: decisions, syncedAt: 0, budget: 0, pending: 0, inflight: 0, chain: undefined, moved: 0, lastMoved: false, answered: 0, lastHitAt: 0 };
    this.setView(entry, decisions);
    if (this.entries.size >= PRECOUNT_ENTRIES) this.evictIdle();
    this.entries.set(id, entry);
    return entry;
  }

  // Oldest first (Map order); an entry with hits still to send is kept so no hit is lost.
  private evictIdle(): void {
    let scanned = 0;
    for (const [id, entry] of this.entries) {
      if (entry.pending === 0 && entry.inflight === 0 && entry.chain === undefined) this.entries.delete(id);
      if (++scanned >= 64 || this.entries.size < PRECOUNT_ENTRIES) return;
    }
  }

  /** Number of counters this isolate is pre-counting. */
  get size(): number {
    return this.entries.size;
  }

  /**
   * Replace the view with what the object answered, noting whether the
   * count moved since the previous answer by more than `consumed` (the
   * hits of this isolate the object took in that call): someone else is
   * still counting. Quota that came back (refill, a new window) is not a
   * move: a sliding window or bucket refills for a whole window after the
   * last hit, and reading it every sync_ms for that long would cost an RPC
   * per counter per sync for nothing (a view that is too low is only
   * conservative, and a counter that is not hot is decided by the object).
   */
  private refresh(entry: Entry, decisions: readonly Decision[], consumed: number): void {
    const previous = entry.snapshot;
    const changed = previous.length !== decisions.length || decisions.some((d, i) => d.remaining < previous[i].remaining - consumed);
    if (changed) entry.moved += 1;
    entry.lastMoved = changed;
    this.setView(entry, decisions);
  }

  private setView(entry: Entry, decisions: readonly Decision[]): void {
    entry.snapshot = decisions;
    entry.syncedAt = this.now();
    const remaining = Math.min(...decisions.map((d) => d.remaining));
    entry.budget = Math.floor(remaining * PRECOUNT_SHARE);
  }
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

/**
 * A counter is decided here only while it is hot in this isolate: its
 * previous hit came less than `sync_ms` ago. A counter hit now and then
 * (1,000 keys at one request a second each, say) is decided strongly, as
 * without precount, rather than paying a background sync for every hit.
 */
function isHot(entry: Entry, now: number): boolean {
  return now - entry.lastHitAt < entry.syncMs;
}

/** How long a view may be decided from locally after its last sync. */
function freshFor(syncMs: number): number {
  return 2 * syncMs + 1_000;
}

/**
 * Which pre-counted counter a call is (its key and limits; not its cost).
 *
 * @example
 * precountId(call) === precountId({ ...call, cost: 3 }); // true
 */
export function precountId(call: CounterCall): string {
  return call.key + "\u0001" + call.limits.map((l) => l.id).join("\u0002");
}

function localVerdict(entry: Entry, now: number): CounterVerdict {
  const aged = now - entry.syncedAt;
  return {
    allowed: true,
    // Every field written out (no spread): this runs for every locally decided hit.
    decisions: entry.snapshot.map((d) => ({
      allowed: true,
      limit: d.limit,
      remaining: Math.max(0, d.remaining - entry.pending - entry.inflight),
      resetAfterMs: Math.max(0, d.resetAfterMs - aged),
      retryAfterMs: 0,
    })),
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
