/**
 * One global counter as a regional object holds it (docs/placement.md,
 * "Global limits decided in the region"): the view its home object last
 * reported, the regional lease the home set aside for this region, and the
 * hits the region allowed from it that the home has not been told of. The
 * home's side is the pre-counting lease protocol unchanged
 * (precount-sync.ts): the regional object is one more holder.
 */
import type { Decision } from "../algorithms/types.ts";
import type { AbsorbCall, CounterCall, CounterVerdict, DecideCall } from "./protocol.ts";

/** Background syncs with the home (reports and renewals), batched per home: cross-region round trips are 10 to 200 ms. */
export const RELAY_SYNC_MS = 1_000;

/** A regional lease lasts this long unrenewed (the home's longest, MAX_LEASE_TTL_MS); the region counts it from before it asked. */
export const RELAY_LEASE_TTL_MS = 10_000;

/** A lease is renewed at the first sync that finds less than this left of it. */
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

/** One global key in a regional object. */
export interface Held {
  /** The key's call at cost 1, as the home takes it. */
  readonly call: DecideCall;
  /** Estimated bytes of this record, its key included (RELAY_BYTES bounds the sum). */
  readonly bytes: number;
  /** The home's decisions as of `syncedAt`, everything the region sent so far charged. */
  snapshot: readonly Decision[];
  syncedAt: number;
  /** Quota the home leased this region as of its last answer; pending and in-flight hits count against it. */
  budget: number;
  /** Until when (this object's clock) the lease may be spent: its time to live from before the call that got it left. */
  until: number;
  /** Hits allowed from the lease and not yet sent, and sent but not yet answered. */
  pending: number;
  inflight: number;
  /** A report or renewal is on its way: one at a time, so an older answer never overwrites a newer lease. */
  syncing: boolean;
  lastHitAt: number;
  /** Hits in the region since the last renewal was sent, and when: the rate the next lease is sized for. */
  hitsSinceSync: number;
  syncSentAt: number;
  /** Hits the lease could not cover since the last renewal: it ran short, so the next one grows. */
  short: number;
  /** Round trip to the home lately (a moving average). */
  roundTripMs: number;
}

/**
 * A new record for `call`'s key, seen at `now`.
 *
 * @example
 * const held = newHeld(call, Date.now());
 */
export function newHeld(call: CounterCall, now: number): Held {
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
  };
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
  return held.pending + held.inflight + cost <= held.budget && now < held.until;
}

/**
 * The sync for `held` at `now`: its `hits` to report, and the lease it asks
 * for, what the region's rate would take in two sync periods and two round
 * trips to the home (at least RELAY_LEASE_MIN; × RELAY_LEASE_GROWTH after
 * running short; at most the smallest limit ÷ RELAY_LEASE_SHARE), or, idle for RELAY_IDLE_MS, none, giving back the rest.
 *
 * @example
 * const call = syncCall(held, held.pending, holder, Date.now());
 */
export function syncCall(held: Held, hits: number, holder: string, now: number): AbsorbCall {
  // Over a sync period at least: a key's first hit is not a rate.
  const rate = held.hitsSinceSync / Math.max(RELAY_SYNC_MS, now - held.syncSentAt);
  const idle = now - held.lastHitAt >= RELAY_IDLE_MS;
  const sized = Math.ceil(2 * (RELAY_SYNC_MS + held.roundTripMs) * rate);
  const cap = Math.ceil(Math.min(...held.call.limits.map((limit) => limit.limit)) / RELAY_LEASE_SHARE);
  const want = idle ? 0 : Math.min(cap, Math.max(RELAY_LEASE_MIN, sized, held.short > 0 ? RELAY_LEASE_GROWTH * held.budget : 0));
  // The caller counts `hits` in flight already.
  const release = idle ? Math.max(0, held.budget - held.pending - held.inflight) : 0;
  if (release > 0) held.budget -= release;
  held.hitsSinceSync = 0;
  held.short = 0;
  held.syncSentAt = now;
  return { ...held.call, kind: "absorb", cost: hits, lease: { holder, want, release, ttlMs: RELAY_LEASE_TTL_MS } };
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
  if (verdict.reserved === undefined) return;
  const roundTrip = Math.max(0, receivedAt - sentAt);
  held.roundTripMs = held.roundTripMs === 0 ? roundTrip : (3 * held.roundTripMs + roundTrip) / 4;
  held.budget = verdict.reserved;
  held.until = sentAt + RELAY_LEASE_TTL_MS;
}
