/**
 * Edge pre-counting (`precount`; docs: "Edge pre-counting"). An isolate
 * decides a hot counter locally while the quota the object leased it
 * lasts, and sends the hits it took to the object in the background at
 * least every `sync_ms`, asking for its next lease in the same call. The
 * object counts leased quota as taken in every other decision, so the
 * isolates together never allow more than the counter admits, however
 * many they are (src/durable/counters/leases/leases.ts). When its lease is spent or has
 * run out an isolate decides strongly, through the object, so decisions
 * near the limit are exact.
 *
 * This file keeps the table of counters and decides; precount-view.ts holds
 * one counter's view and budget, precount-chain.ts the background syncs
 * (when they run, when they stop, and the convergence guarantee).
 */
import type { Decision } from "../algorithms/types.ts";
import type { CounterCall, CounterVerdict, SendBatch } from "../stored/wire-calls.ts";
import type { Defer } from "../http/defer.ts";
import { endSync, failSync, owesHits, spend, startSync } from "../durable/counters/leases/lease-holder.ts";
import { leaseVerdict } from "../durable/counters/leases/lease-verdict.ts";
import { HotHints } from "./hot-hints.ts";
import { learnHint, Syncer } from "./precount-chain.ts";
import {
  canSpend,
  freshFor,
  isHot,
  newEntry,
  noteHit,
  precountId,
  refresh,
  setLease,
  setView,
  syncCall,
  type Entry,
  type PrecountStats,
} from "./precount-view.ts";

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
  readonly stats: PrecountStats = { local: 0, strong: 0, flushes: 0, overshoot: 0 };
  /** Counters their objects said are hot: leasable calls on them are pre-counted on the period named (hot-hints.ts). */
  readonly hints = new HotHints();

  constructor(send: SendBatch, now: () => number) {
    this.send = send;
    this.now = now;
    this.syncer = new Syncer(send, now, this.stats, undefined, this.hints);
  }

  /**
   * Decide one call (cost ≥ 1) for a counter with precount enabled, or,
   * `auto`, one its object hinted hot (syncMs: the period it named).
   *
   * @example
   * const verdict = await table.decide("api/shard/3", call, 100, defer);
   */
  async decide(objectName: string, call: CounterCall, syncMs: number, defer: Defer, auto = false): Promise<CounterVerdict> {
    const local = this.decideLocally(call, syncMs, defer);
    if (local !== undefined) return local;
    const id = precountId(call);
    const entry = this.entries.get(id);
    // A hit on a counter this isolate is pre-counting keeps its refresh chain going; a first (or long-paused) one only learns.
    const startedAt = this.now();
    if (entry !== undefined) noteHit(entry, startedAt);
    const fresh = entry !== undefined && startedAt - entry.syncedAt < freshFor(syncMs);
    const hot = entry !== undefined && isHot(entry, startedAt);
    this.stats.strong += 1;
    const carried = entry?.pending ?? 0;
    // Only a counter hot in this isolate syncs (and holds a lease): on one hit now and then, syncing would cost more than it saves.
    const own = entry !== undefined && (carried > 0 || (fresh && hot));
    // The sync rides along unless one is already on its way (one at a time, see Entry.syncing).
    const syncs = own && !entry.syncing;
    // The hit first, decided beside everyone's leases (this isolate's own included: it asks because its lease is spent
    // or gone); then, for a hot counter, a sync that reports the carried hits and asks for the next lease.
    const calls: CounterCall[] = [call];
    if (entry !== undefined) {
      entry.hitsSinceSync += call.cost;
      // A hot counter's hit that its lease could not cover: the lease ran short.
      if (hot && fresh) entry.short += call.cost;
      entry.asking += call.cost;
    }
    const sent = syncs ? startSync(entry) : 0;
    if (syncs) calls.push(syncCall(entry, sent, this.syncer.holder, startedAt));
    let verdicts: CounterVerdict[];
    try {
      verdicts = await this.send(objectName, calls, defer);
    } catch (error) {
      // The object did not answer: the carried hits wait for the next sync rather than being lost.
      if (syncs) failSync(entry, sent);
      throw error;
    } finally {
      if (entry !== undefined) entry.asking -= call.cost;
    }
    const verdict = verdicts[0];
    const synced = syncs ? verdicts[1] : undefined;
    const accepted = syncs ? endSync(entry, sent, synced) : 0;
    this.stats.overshoot += sent - accepted;
    const decisions = synced?.decisions ?? verdict.decisions;
    const learned = this.learn(id, objectName, call, syncMs, decisions, accepted + (verdict.allowed ? call.cost : 0), own, auto);
    if (synced !== undefined) setLease(learned, synced, startedAt, this.now());
    if (learned.auto) learnHint(learned, verdict, this.hints);
    // A strong decision is a round trip to the object too: the first lease is sized with it, not as if the object were here.
    else if (learned.roundTripMs === 0) learned.roundTripMs = Math.max(0, this.now() - startedAt);
    // When the hit was decided, not when it was asked: a slow object (a cold start) must not make a hot counter look cold.
    learned.lastHitAt = this.now();
    if (own) this.syncer.keepSyncing(learned, defer, this.now());
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
  decideLocally(call: CounterCall, syncMs: number, defer: Defer, now: number = this.now(), id: string = precountId(call)): CounterVerdict | undefined {
    const entry = this.localEntry(id, call, syncMs, now);
    if (entry === undefined) return undefined;
    noteHit(entry, now);
    spend(entry, call.cost, now);
    this.stats.local += 1;
    // Budget spent: send now, so the object sees these hits before this isolate allows more.
    if (entry.pending + entry.inflight >= entry.budget && !entry.syncing) defer(this.syncer.sync(entry, false, defer));
    this.syncer.keepSyncing(entry, defer, now);
    return leaseVerdict(entry, now);
  }

  private localEntry(id: string, call: CounterCall, syncMs: number, now: number): Entry | undefined {
    const entry = this.entries.get(id);
    return entry !== undefined && canSpend(entry, call.cost, syncMs, now) ? entry : undefined;
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
    return entry === undefined ? undefined : leaseVerdict(entry, this.now()).decisions;
  }

  /**
   * A read (a cost-0 call) of a counter as the object answered it, less the
   * hits this isolate allowed on it that the object has not charged yet
   * (pending, and in flight, which it may or may not have counted by then:
   * counted as not, so a read never says more is left than is). Other
   * isolates' unsynced hits are theirs to report (docs/precount.md, "Reads").
   *
   * @example
   * const read = table.withOwnHits(call, verdict); // verdict.decisions[i].remaining less this isolate's unsynced hits
   */
  withOwnHits(call: CounterCall, verdict: CounterVerdict): CounterVerdict {
    const entry = this.entries.size === 0 ? undefined : this.entries.get(precountId(call));
    const unsynced = entry === undefined ? 0 : entry.pending + entry.inflight;
    if (unsynced === 0) return verdict;
    return { ...verdict, decisions: verdict.decisions.map((d) => ({ ...d, remaining: Math.max(0, d.remaining - unsynced) })) };
  }

  /** Number of counters this isolate is pre-counting. */
  get size(): number {
    return this.entries.size;
  }

  /** Take a strong decision's answer as the view (creating the entry); `own`: it counts as this isolate's activity on the counter. */
  private learn(
    id: string,
    objectName: string,
    call: CounterCall,
    syncMs: number,
    decisions: readonly Decision[],
    consumed: number,
    own: boolean,
    auto: boolean,
  ): Entry {
    const existing = this.entries.get(id);
    if (existing !== undefined) {
      if (own) {
        refresh(existing, decisions, consumed, this.now());
        existing.answered += 1;
      } else {
        setView(existing, decisions, this.now());
        existing.lastMoved = false;
      }
      return existing;
    }
    const entry = newEntry(objectName, call, syncMs, decisions, this.now(), auto);
    if (this.entries.size >= PRECOUNT_ENTRIES) this.evictIdle();
    this.entries.set(id, entry);
    return entry;
  }

  // Oldest first (Map order); an entry with hits still to send is kept so no hit is lost.
  private evictIdle(): void {
    let scanned = 0;
    for (const [id, entry] of this.entries) {
      if (!owesHits(entry) && entry.chain === undefined) this.entries.delete(id);
      if (++scanned >= 64 || this.entries.size < PRECOUNT_ENTRIES) return;
    }
  }
}
