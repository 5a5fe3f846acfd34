/**
 * The lease holder: one side of the lease protocol, written once for both of
 * its users (docs/precount.md, "One lease holder"). An isolate pre-counting a
 * counter (src/isolate/precount.ts) and a regional object relaying a global key
 * to its home (src/durable/counters/relay.ts) each hold, per counter, quota the
 * counter's object leased them and hits they allowed from it that the
 * object has not been told of; the object's side is precount-sync.ts, the
 * same for both. What differs is only the sizing policy (how big a lease to
 * ask for, how long it lasts, when the holder is idle) and when syncs run
 * (an isolate's refresh chains, a regional object's sync period): those stay
 * with each user. Everything that moves quota and hits is here:
 *
 * - a hit is allowed from the lease only if its whole cost fits what the
 *   lease still covers beside the hits pending and in flight, before the
 *   lease's end as the holder counts it (from before the call that got it);
 * - a sync carries every pending hit (its cost, never fewer) and asks for
 *   the next lease, one sync at a time per counter, so an older answer never
 *   overwrites a newer lease;
 * - a sync the object did not answer puts its hits back to pending, for the
 *   next one: none is lost;
 * - a counter with hits pending or in flight is never dropped.
 */
import type { Decision } from "../../../algorithms/types.ts";
import type { AbsorbCall, CounterVerdict, DecideCall } from "../../../stored/wire-calls.ts";

/** One counter as its holder keeps it. */
export interface HeldLease {
  /**
   * The counter's call at cost 1 (its key and windows): syncs send it with
   * their own cost. `object`: a global key leased from its region's copy,
   * whose name the syncs carry (docs/placement.md, "Hot keys at the region's copy").
   */
  readonly call: DecideCall & { readonly object?: string };
  /** The object's decisions as of `syncedAt`, everything the holder sent so far charged. */
  snapshot: readonly Decision[];
  syncedAt: number;
  /** Quota the object leased this holder as of its last answer; pending and in-flight hits count against it. */
  budget: number;
  /** Until when (the holder's clock) the lease may be spent: its time to live from before the call that got it left. */
  until: number;
  /** Hits allowed from the lease and not yet sent. */
  pending: number;
  /** Hits sent to the object whose answer has not arrived: they still count against the budget. */
  inflight: number;
  /** A sync is on its way: one at a time, so the lease its answer brings is the object's latest word for this holder. */
  syncing: boolean;
  /** When the holder last took a hit on the counter. */
  lastHitAt: number;
  /** Hits taken since the last sync was sent, and when that was: the rate the next lease is sized for. */
  hitsSinceSync: number;
  syncSentAt: number;
  /** Hits the lease could not cover since the last sync was sent: it ran short, so the next one grows. */
  short: number;
  /** The round trip of this counter's syncs lately (a moving average). */
  roundTripMs: number;
  /** The pending hits by when they were allowed (`spend`), reported with them so each is charged in its window. */
  spent?: SpentPart[];
  /** The parts of the sync on its way (`startSync`): pending again if it fails. */
  sending?: SpentPart[];
}

/** Hits allowed at one time, the last of them (a sync's `spentAt`). */
interface SpentPart {
  at: number;
  cost: number;
}

/**
 * Parts a holder keeps per sync before it merges hits of one window into
 * the last part (its time moving to the later hit's: charged later, never
 * admitting more); a window edge always starts a new part.
 */
export const SPENT_PARTS = 16;

/** Whether `a` and `b` fall in the same aligned window of every limit of `call` (docs/placement.md, "Hits charged in their window"). */
function sameWindows(call: DecideCall, a: number, b: number): boolean {
  return call.limits.every((limit) => !(limit.windowMs > 0) || Math.floor(a / limit.windowMs) === Math.floor(b / limit.windowMs));
}

/**
 * What sizes a holder's leases: the one thing its users do differently
 * (docs/precount.md, "One lease holder"; docs/placement.md, "Global limits decided
 * in the region").
 */
export interface LeasePolicy<H extends HeldLease> {
  /** How long a lease lasts unrenewed, asked of the object and counted by the holder from before it asked. */
  ttlMs(held: H): number;
  /** Whether the holder took no hit on the counter for long enough to give its lease back at `now`. */
  idle(held: H, now: number): boolean;
  /** The lease to ask for at a sync at `now` (not idle), from the hits since the last sync (`hitsSinceSync` since `syncSentAt`, `short`). */
  want(held: H, now: number): number;
}

/**
 * Whether `cost` more hits may be allowed from the lease at `now`: the whole
 * cost fits what the lease covers beside the hits pending and in flight,
 * before the lease's end as the holder counts it.
 *
 * @example
 * if (canSpend(held, call.cost, now)) spend(held, call.cost, now);
 */
export function canSpend(held: HeldLease, cost: number, now: number): boolean {
  return held.pending + held.inflight + cost <= held.budget && now < held.until;
}

/**
 * Allow `cost` hits from the lease at `now` (the caller checked `canSpend`):
 * all of them are pending, to be charged at the next sync.
 *
 * @example
 * spend(held, 3, Date.now()); // held.pending grew by 3
 */
export function spend(held: HeldLease, cost: number, now: number): void {
  const parts = (held.spent ??= []);
  const last = parts[parts.length - 1];
  if (last !== undefined && (last.at === now || (parts.length >= SPENT_PARTS && sameWindows(held.call, last.at, now)))) {
    last.at = Math.max(last.at, now);
    last.cost += cost;
  } else parts.push({ at: now, cost });
  held.pending += cost;
  held.hitsSinceSync += cost;
  held.lastHitAt = now;
}

/**
 * The sync call for `held` at `now`: it reports `hits` (the caller counts
 * them in flight already) and asks for the next lease, sized by `policy`,
 * or, idle, none, giving back what the lease still covers beyond the hits
 * pending and in flight. Starts a new rate period.
 *
 * @example
 * const call = syncCall(held, sent, holder, Date.now(), policy);
 */
export function syncCall<H extends HeldLease>(held: H, hits: number, holder: string, now: number, policy: LeasePolicy<H>): AbsorbCall {
  const idle = policy.idle(held, now);
  const want = idle ? 0 : policy.want(held, now);
  const release = idle ? Math.max(0, held.budget - held.pending - held.inflight) : 0;
  if (release > 0) held.budget -= release;
  held.hitsSinceSync = 0;
  held.short = 0;
  held.syncSentAt = now;
  const call: AbsorbCall = { ...held.call, kind: "absorb", cost: hits, lease: { holder, want, release, ttlMs: policy.ttlMs(held) } };
  const parts = held.sending ?? [];
  // The hits' times, when the parts are exactly the hits reported (docs/placement.md, "Hits charged in their window").
  return hits > 0 && parts.reduce((sum, part) => sum + part.cost, 0) === hits ? { ...call, spentAt: parts.map(({ at, cost }) => ({ at, cost })) } : call;
}

/**
 * Start a sync of `held`: its pending hits go in flight, one sync at a
 * time. Returns the hits it carries; `syncCall` then makes the call.
 *
 * @example
 * const sent = startSync(held); const call = syncCall(held, sent, holder, now, policy);
 */
export function startSync(held: HeldLease): number {
  const sent = held.pending;
  held.pending = 0;
  held.sending = held.spent ?? [];
  held.spent = [];
  held.inflight += sent;
  held.syncing = true;
  return sent;
}

/**
 * The sync that carried `sent` hits was not answered: they are pending
 * again, for the next one.
 *
 * @example
 * try { await send(call); } catch { failSync(held, sent); }
 */
export function failSync(held: HeldLease, sent: number): void {
  // Older than any spent since: first.
  held.spent = [...(held.sending ?? []), ...(held.spent ?? [])];
  held.sending = [];
  held.inflight -= sent;
  held.pending += sent;
  held.syncing = false;
}

/**
 * The sync that carried `sent` hits was answered: they are no longer in
 * flight. Returns how many of them the object took (the rest, if any, is
 * overshoot: hits a lease it no longer knew had covered).
 *
 * @example
 * const accepted = endSync(held, sent, verdict);
 */
export function endSync(held: HeldLease, sent: number, verdict: CounterVerdict | undefined): number {
  held.sending = [];
  held.inflight -= sent;
  held.syncing = false;
  return sent > 0 ? (verdict?.accepted ?? sent) : 0;
}

/**
 * Take the lease a sync's answer carries (none: the answer had none to give,
 * and the holder keeps what it had): the budget the object set aside, until
 * the policy's time to live counted from `sentAt`, before the object started
 * its own count, so the holder stops spending first.
 *
 * @example
 * takeLease(held, verdict, sentAt, Date.now(), policy);
 */
export function takeLease<H extends HeldLease>(held: H, verdict: CounterVerdict, sentAt: number, receivedAt: number, policy: LeasePolicy<H>): void {
  if (verdict.reserved === undefined) return;
  const roundTrip = Math.max(0, receivedAt - sentAt);
  held.roundTripMs = held.roundTripMs === 0 ? roundTrip : (3 * held.roundTripMs + roundTrip) / 4;
  held.budget = verdict.reserved;
  // A region's copy lends no longer than its own lease lasts: it says so, and the holder stops at the shorter end.
  const granted = typeof verdict.leaseMs === "number" && verdict.leaseMs >= 0 ? verdict.leaseMs : Infinity;
  held.until = sentAt + Math.min(policy.ttlMs(held), granted);
}

/**
 * Whether `held` still has hits the object has not been told of (pending,
 * or in flight, or a sync on its way): such a counter is never dropped.
 *
 * @example
 * if (!owesHits(held)) table.delete(id);
 */
export function owesHits(held: HeldLease): boolean {
  return held.syncing || held.pending > 0 || held.inflight > 0;
}
