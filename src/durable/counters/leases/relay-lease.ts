/**
 * One global counter as a regional object holds it (docs/placement.md,
 * "Global limits decided in the region"): a lease holder (lease-holder.ts,
 * the same one an isolate's pre-counting uses) with the regional sizing
 * policy below. The home's side is the pre-counting lease protocol unchanged
 * (precount-sync.ts): the regional object is one more holder.
 */
import type { AbsorbCall, CounterCall, CounterVerdict } from "../../../stored/wire-calls.ts";
import * as holder from "./lease-holder.ts";

/**
 * The grid a regional object's alarm falls on: the keys whose leases go
 * idle within one period are given back in one call to the home. The alarm
 * is set only while something is owed (docs/placement.md, "What it costs").
 */
export const RELAY_SYNC_MS = 1_000;

/** A regional lease lasts this long unrenewed (the home's longest, MAX_LEASE_TTL_MS); the region counts it from before it asked. */
export const RELAY_LEASE_TTL_MS = 10_000;

/** A lease is renewed by the first hit (or isolate's sync) that finds less than this left of it, or a quarter of its quota. */
export const RELAY_RENEW_MS = 4_000;

/** A key with no hit in the region for this long gives its lease back at the next sync. */
export const RELAY_IDLE_MS = 5_000;

/** The least lease a region asks for: a key at one request a second decides in the region from its second request on. */
export const RELAY_LEASE_MIN = 4;

/**
 * A region asks for at most this fraction of a key's smallest limit (1/4,
 * rounded up): with a small limit, one region's lease leaves the others
 * most of it.
 */
export const RELAY_LEASE_SHARE = 4;

/** How much a lease that ran short grows at the next sync (as for isolates: a congestion window's slow start). */
export const RELAY_LEASE_GROWTH = 4;

/** One global key in a regional object: a lease holder's record, and its size in memory. */
export interface Held extends holder.HeldLease {
  /** Estimated bytes of this record, its key included (RELAY_BYTES bounds the sum). */
  readonly bytes: number;
  /** Cost of the hits the home refused only for the leases out, waiting for this region's lease to cover them: the next sync asks for it too. */
  wanting: number;
  /** The lease the sync on its way asked for (what `dry` is judged by). */
  asked: number;
  /** The last sync answered got less than it asked for: the home has nothing more to lease this region, so a waiting hit the lease does not cover is refused. */
  dry: boolean;
  /** Settles once the sync on its way has been answered (or failed) and its lease taken: what a waiting hit waits for. */
  synced: Promise<boolean> | undefined;
  /**
   * Of the lease, quota lent on to isolates pre-counting the key here
   * (relay-sublease.ts): not spent yet, but not this object's to spend or
   * give back either.
   */
  subleased: number;
  /** Quota isolates asked for since the last sync and did not get: the next sync asks the home for it too. */
  subAsk: number;
  /**
   * Cost of the hits asked of the home and not answered yet: the home may
   * take them from this lease (FromLease, docs/placement.md, "Bursts"), so
   * they count against it until answered.
   */
  asking: number;
  /** The number of the last sync sent (the copy's count, increasing): a hit asked beside the lease names it. */
  syncNo: number;
  /** Hits the home took from the lease, by the last sync it had taken then: a sync numbered up to that answered with them still in it. */
  takes: { after: number; hits: number }[];
}

/**
 * A regional object's sizing policy: what the region's rate would take in
 * two sync periods and two round trips to the home (at least
 * RELAY_LEASE_MIN; × RELAY_LEASE_GROWTH after running short; at most the
 * smallest limit ÷ RELAY_LEASE_SHARE), for RELAY_LEASE_TTL_MS; idle after
 * RELAY_IDLE_MS without a hit.
 */
export const RELAY_POLICY: holder.LeasePolicy<Held> = {
  ttlMs: () => RELAY_LEASE_TTL_MS,
  // Quota lent on to isolates keeps the key busy: it comes back (spent, given back or expired) before the lease goes.
  idle: (held, now) => now - held.lastHitAt >= RELAY_IDLE_MS && held.subleased === 0,
  want(held, now) {
    // Over a sync period at least: a key's first hit is not a rate.
    const rate = held.hitsSinceSync / Math.max(RELAY_SYNC_MS, now - held.syncSentAt);
    const sized = Math.ceil(2 * (RELAY_SYNC_MS + held.roundTripMs) * rate);
    const cap = Math.ceil(Math.min(...held.call.limits.map((limit) => limit.limit)) / RELAY_LEASE_SHARE);
    // Quota lent to isolates is part of what this region holds, and what they asked for in vain is demand too.
    const lent = held.subleased + held.subAsk;
    const wanted = Math.min(cap, Math.max(RELAY_LEASE_MIN, sized + lent, held.short > 0 ? RELAY_LEASE_GROWTH * held.budget : 0));
    // Hits waiting for the lease to cover them are spent as soon as it comes: what they cost is asked for beyond the cap
    // (docs/placement.md, "Bursts"). The sync already carries the pending hits, so what is left of the lease is budget − inflight.
    return held.wanting > 0 ? Math.max(wanted, held.budget - held.inflight - held.pending + held.wanting) : wanted;
  },
};

/**
 * A new record for `call`'s key, seen at `now`.
 *
 * @example
 * const held = newHeld(call, Date.now());
 */
export function newHeld(call: CounterCall, now: number, syncNo = 0): Held {
  let bytes = 160 + 2 * call.key.length;
  for (const limit of call.limits) bytes += 96 + 2 * limit.id.length;
  return {
    call: { key: call.key, limits: call.limits, cost: 1 },
    bytes,
    snapshot: [],
    syncedAt: now,
    budget: 0,
    until: 0,
    pending: 0,
    inflight: 0,
    syncing: false,
    lastHitAt: now,
    hitsSinceSync: 0,
    syncSentAt: now,
    short: 0,
    roundTripMs: 0,
    wanting: 0,
    asked: 0,
    dry: false,
    synced: undefined,
    subleased: 0,
    subAsk: 0,
    asking: 0,
    syncNo,
    takes: [],
  };
}

/**
 * What the lease has free: not spent, in flight, lent on, or possibly taken
 * by a hit asked of the home.
 *
 * @example
 * if (freeOf(held) <= 0) void sync(held);
 */
export function freeOf(held: Held): number {
  return held.budget - held.pending - held.inflight - held.subleased - held.asking;
}

/**
 * The home answered a hit asked beside the lease (`asked`, its cost): what
 * it took from the lease leaves the budget, and is remembered against a
 * sync answered with it still in (docs/placement.md, "Bursts").
 *
 * @example
 * answered(held, 1, verdict.taken);
 */
export function answered(held: Held, cost: number, taken: CounterVerdict["taken"]): void {
  held.asking -= cost;
  if (taken === undefined || !(taken.hits > 0)) return;
  held.budget -= taken.hits;
  const last = held.takes[held.takes.length - 1];
  if (last !== undefined && last.after === taken.after) last.hits += taken.hits;
  else held.takes.push({ after: taken.after, hits: taken.hits });
}

/**
 * Whether `cost` more hits may be allowed from the lease at `now`: they fit
 * it and it has not run out as this object counts it (before the home's
 * count, which started later: the expiries nest).
 *
 * @example
 * if (canSpend(held, 1, Date.now())) held.pending += 1;
 */
export function canSpend(held: Held, cost: number, now: number): boolean {
  // Quota lent on to isolates is theirs until it comes back.
  return holder.canSpend(held, cost + held.subleased + held.asking, now);
}

/**
 * The sync for `held` at `now`: its `hits` to report, and the lease it asks
 * for by RELAY_POLICY, or, idle for RELAY_IDLE_MS, none, giving back the rest;
 * numbered `syncNo` (the copy's count) when given.
 *
 * @example
 * const call = syncCall(held, held.pending, holder, Date.now(), ++syncs);
 */
export function syncCall(held: Held, hits: number, holderId: string, now: number, syncNo?: number): AbsorbCall {
  const call = holder.syncCall(held, hits, holderId, now, RELAY_POLICY);
  held.asked = call.lease?.want ?? 0;
  held.subAsk = 0;
  if (syncNo === undefined) return call;
  held.syncNo = syncNo;
  return call.lease === undefined ? call : { ...call, lease: { ...call.lease, syncNo } };
}

/**
 * Take a sync's answer, sent at `sentAt`: the view, and the lease with its
 * end counted from `sentAt`.
 *
 * @example
 * takeLease(held, verdict, sentAt, Date.now());
 */
export function takeLease(held: Held, verdict: CounterVerdict, sentAt: number, receivedAt: number): void {
  held.snapshot = verdict.decisions;
  held.syncedAt = receivedAt;
  held.dry = held.asked > 0 && (verdict.reserved ?? 0) < held.asked;
  holder.takeLease(held, verdict, sentAt, receivedAt, RELAY_POLICY);
  if (verdict.reserved === undefined) return;
  // Hits taken from the lease after this sync was in: its `reserved` still counts them.
  held.takes = held.takes.filter((take) => take.after >= held.syncNo);
  for (const take of held.takes) held.budget -= take.hits;
}
