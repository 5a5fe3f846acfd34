/**
 * One pre-counted counter as an isolate sees it (see precount.ts): the view
 * the object last reported, the lease this isolate may spend on it, and the
 * verdicts it answers locally from them.
 */
import type { Decision } from "../algorithms/types.ts";
import {
  canSpend as holderCanSpend,
  type HeldLease,
  type LeasePolicy,
  syncCall as holderSyncCall,
  takeLease,
} from "../durable/counters/leases/lease-holder.ts";
import type { AbsorbCall, CounterCall, CounterVerdict } from "../stored/wire-calls.ts";
import { newOp } from "./op-ids.ts";

/** The least lease a hot counter asks for. */
export const LEASE_MIN = 4;

/**
 * How much a lease that ran short grows at the next sync: each step costs
 * a round trip to the object, so a far-away hot counter reaches the lease
 * its rate needs in few of them (docs/placement.md, "Lease size").
 */
export const LEASE_GROWTH = 4;

/** One pre-counted counter in one isolate: a lease holder's record (src/durable/counters/leases/lease-holder.ts), and what an isolate adds. */
export interface Entry extends HeldLease {
  readonly objectName: string;
  /** The sync period: the rule's `sync_ms`, or, for a counter its object hinted hot, the period its object named last. */
  syncMs: number;
  /** Pre-counted on its object's hint (docs/precount.md, "Hot keys lease on their own"), not its rule's `precount`. */
  readonly auto: boolean;
  /** The refresh chain, while one runs. */
  chain: Chain | undefined;
  /** Answers so far that showed the count moved by more than this isolate's own hits. */
  moved: number;
  /** Whether the latest answer did. */
  lastMoved: boolean;
  /** Answers so far, outside the refresh chain, to calls carrying this isolate's hits (strong decisions, budget flushes). */
  answered: number;
  /**
   * Hits of this isolate waiting for the object's strong decision: demand
   * as much as hits taken. With the object far away every request may be
   * waiting on it for longer than a sync period, and a sync that then took
   * the counter for idle would give back the lease the waiters need.
   */
  asking: number;
  /** A moving average of the gaps between this isolate's hits on the counter (Infinity before the second hit). */
  gapMs: number;
}

/**
 * An isolate's sizing policy (docs/precount.md, "One lease holder"): what its rate
 * since the last sync would take in two sync periods and two round trips to
 * the object (at least LEASE_MIN; × LEASE_GROWTH after running short), for
 * `leaseTtl(sync_ms)`; idle when no hit came
 * since the previous sync, none for a sync period, and none is waiting.
 */
export const PRECOUNT_POLICY: LeasePolicy<Entry> = {
  ttlMs: (entry) => leaseTtl(entry.syncMs),
  // A stall shorter than the time between two syncs, which a far-away object stretches to a round trip, leaves a
  // hot counter its lease (a refresh chain stops only once it holds none).
  idle: (entry, now) => entry.hitsSinceSync === 0 && entry.asking === 0 && now - entry.lastHitAt >= entry.syncMs,
  want(entry, now) {
    const rate = entry.hitsSinceSync / Math.max(1, now - entry.syncSentAt);
    // A lease that ran short while the object is far away measures a rate its own waits held down: grow it geometrically,
    // as a congestion window does in slow start, up to the object's fair share, rather than by what the waits let through.
    return Math.max(leaseWant(rate, entry.syncMs, entry.roundTripMs), entry.short > 0 ? LEASE_GROWTH * entry.budget : 0);
  },
};

/** One isolate's background sync loop for one counter (see precount-chain.ts). */
export interface Chain {
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
 * A new entry for the counter of `call`, viewing `decisions` as of `now`.
 *
 * @example
 * const entry = newEntry("api/shard/3", call, 100, verdict.decisions, Date.now());
 */
export function newEntry(objectName: string, call: CounterCall, syncMs: number, decisions: readonly Decision[], now: number, auto = false): Entry {
  const entry: Entry = {
    objectName,
    // A global key hot at its region's copy is leased from that copy: its syncs name it (docs/placement.md).
    call:
      relayedObject(call) === undefined
        ? { key: call.key, limits: call.limits, cost: 1 }
        : { key: call.key, limits: call.limits, cost: 1, object: relayedObject(call) },
    syncMs,
    auto,
    snapshot: decisions,
    syncedAt: 0,
    budget: 0,
    until: 0,
    hitsSinceSync: call.cost,
    syncSentAt: now,
    roundTripMs: 0,
    pending: 0,
    inflight: 0,
    syncing: false,
    chain: undefined,
    moved: 0,
    lastMoved: false,
    answered: 0,
    lastHitAt: 0,
    asking: 0,
    gapMs: Number.POSITIVE_INFINITY,
    short: 0,
  };
  setView(entry, decisions, now);
  return entry;
}

/**
 * Take `decisions` as the view at `now`.
 *
 * @example
 * setView(entry, verdict.decisions, Date.now());
 */
export function setView(entry: Entry, decisions: readonly Decision[], now: number): void {
  entry.snapshot = decisions;
  entry.syncedAt = now;
}

/**
 * Take the lease a sync's answer carries: the budget is what the object
 * set aside for this isolate, spendable until the lease's time to live,
 * counted from `sentAt` (before the object started its own count).
 *
 * @example
 * setLease(entry, verdict, sentAt, Date.now());
 */
export function setLease(entry: Entry, verdict: CounterVerdict, sentAt: number, receivedAt: number): void {
  takeLease(entry, verdict, sentAt, receivedAt, PRECOUNT_POLICY);
}

/**
 * The sync call for an entry at `now`: its `hits` to report, and the lease
 * it asks for: what this isolate's rate since the last sync would take in
 * two sync periods and two round trips to the object (at least LEASE_MIN:
 * the lease must outlast the next sync's answer), or, when it took no hit
 * since the previous sync nor for a sync period, none, giving back what is left unspent (a refresh chain
 * stops only once it holds no lease, so an isolate going quiet keeps none).
 *
 * @example
 * const call = syncCall(entry, entry.pending, holder, Date.now());
 */
export function syncCall(entry: Entry, hits: number, holder: string, now: number): AbsorbCall {
  // An id: a retry of a sync whose answer was lost neither charges its hits nor gives its lease back twice (docs/reliability.md, "Exactly once").
  return { ...holderSyncCall(entry, hits, holder, now, PRECOUNT_POLICY), op: newOp() };
}

/**
 * The lease an isolate hitting a counter at `ratePerMs` asks for: enough
 * for two sync periods and two round trips, at least LEASE_MIN.
 *
 * @example
 * leaseWant(1, 100, 200); // 600
 */
export function leaseWant(ratePerMs: number, syncMs: number, roundTripMs: number): number {
  return Math.max(LEASE_MIN, Math.ceil(2 * (syncMs + roundTripMs) * ratePerMs));
}

/**
 * How long a lease lasts without a sync: long enough for two missed syncs
 * and a slow round trip, short enough that quota a vanished isolate held
 * comes back soon.
 *
 * @example
 * leaseTtl(100); // 1200
 */
export function leaseTtl(syncMs: number): number {
  return freshFor(syncMs);
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
 *
 * @example
 * refresh(entry, verdict.decisions, verdict.accepted ?? 0, Date.now());
 */
export function refresh(entry: Entry, decisions: readonly Decision[], consumed: number, now: number): void {
  const previous = entry.snapshot;
  const changed = previous.length !== decisions.length || decisions.some((d, i) => d.remaining < previous[i].remaining - consumed);
  if (changed) entry.moved += 1;
  entry.lastMoved = changed;
  setView(entry, decisions, now);
}

/**
 * Whether `cost` more hits may be decided from this entry at `now`: they
 * fit the lease, the lease has not run out, and the view is fresh. Only a
 * counter hot here gets a lease (a sync after a whole interval without hits
 * gives it back), so a counter hit now and then is decided strongly; but a
 * pause in a hot counter's traffic (a slow origin, a collection) shorter
 * than that does not send its next hits to a far-away object.
 *
 * @example
 * if (canSpend(entry, call.cost, 100, Date.now())) entry.pending += call.cost;
 */
export function canSpend(entry: Entry, cost: number, syncMs: number, now: number): boolean {
  // A lease is spent only on a fresh view: an isolate's own condition beside the holder's.
  return holderCanSpend(entry, cost, now) && now - entry.syncedAt < freshFor(syncMs);
}

/**
 * Note a hit at `now` (taken locally, or asked of the object) in the
 * moving average of the gaps between hits.
 *
 * @example
 * noteHit(entry, Date.now());
 */
export function noteHit(entry: Entry, now: number): void {
  const gap = Math.max(0, now - entry.lastHitAt);
  entry.gapMs = entry.gapMs === Number.POSITIVE_INFINITY ? gap : (entry.gapMs + gap) / 2;
}

/**
 * A counter is hot in this isolate while its hits here come more than
 * twice per sync period, by a moving average of their gaps, and the last
 * one came less than `sync_ms` ago: a strong decision on it then syncs and
 * asks for a lease. A refresh chain costs a call per sync period, so a
 * counter hit less often than that (1,000 keys at a few requests a second
 * each, say) is decided strongly, as without precount: syncing it would
 * cost more calls than it saves.
 *
 * @example
 * isHot(entry, Date.now()); // false a sync period after the last hit
 */
export function isHot(entry: Entry, now: number): boolean {
  return now - entry.lastHitAt < entry.syncMs && entry.gapMs < entry.syncMs / 2;
}

/**
 * How long a view may be decided from locally after its last sync.
 *
 * @example
 * freshFor(100); // 1200
 */
export function freshFor(syncMs: number): number {
  return 2 * syncMs + 1_000;
}

/**
 * Which pre-counted counter a call is (its key and limits; not its cost).
 *
 * @example
 * precountId(call) === precountId({ ...call, cost: 3 }); // true
 */
export function precountId(call: CounterCall): string {
  const id = `${call.key}\u0001${call.limits.map((l) => l.id).join("\u0002")}`;
  // Leased from a region's copy, not the home: a counter of its own here, with its own hint and lease.
  const object = relayedObject(call);
  return object === undefined ? id : `${object}\u0003${id}`;
}

/** The region's copy a call goes to, for a relayed call or a sync on a key leased from that copy. */
function relayedObject(call: CounterCall): string | undefined {
  const object = (call as { object?: unknown }).object;
  return typeof object === "string" && (call.kind === "relay" || call.kind === "absorb" || call.kind === undefined) ? object : undefined;
}
