/**
 * How a counter object takes a pre-counting isolate's sync (an `absorb`
 * call) and counts leased quota in every other decision (docs: "Edge
 * pre-counting"). Kept apart from the object so the object stays the one
 * place that reads and writes its counters, through the `CounterAccess` it
 * passes in.
 */
import type { Decision } from "../../../algorithms/types.ts";
import type { LeaseBook } from "./leases.ts";
import type { AbsorbCall, CounterCall, CounterVerdict, SpentAt } from "../../../stored/wire-calls.ts";

/** The longest lease an isolate may ask for: quota a vanished isolate can hold back. */
export const MAX_LEASE_TTL_MS = 10_000;

/** What the object lends this module: its counters, at one instant. */
export interface CounterAccess {
  /** Whether `cost` hits on every window of `call` would be allowed now, or allowed at `at` (before now) and charged in their window (nothing consumed). */
  fits(call: CounterCall, cost: number, at?: number): boolean;
  /** Take `cost` hits on every window of `call`, now or as allowed at `at` (the caller checked they fit). */
  take(call: CounterCall, cost: number, at?: number): void;
  /** Every window's decision for reading the counter now (nothing consumed). */
  peek(call: CounterCall): readonly Decision[];
}

/** Which counter a lease is on: the counter key and its windows. */
export function leaseId(call: CounterCall): string {
  let id = call.key;
  for (const limit of call.limits) id += `\u0001${limit.id}`;
  return id;
}

/**
 * The largest k ≤ n for which `fits(k)`, by bisection: fitting only turns
 * false as k grows (k hits at once are k single hits at one instant,
 * test/algorithms/batched-cost.node.test.ts), so a few checks, not one per hit.
 */
export function mostThatFit(n: number, fits: (k: number) => boolean): number {
  if (n <= 0) return 0;
  if (fits(n)) return n;
  let ok = 0;
  let over = n;
  while (over - ok > 1) {
    const mid = ok + Math.floor((over - ok) / 2);
    if (fits(mid)) ok = mid;
    else over = mid;
  }
  return ok;
}

/**
 * The most a holder asking for `need` more may be lent of `free`, with
 * `holders` holding leases already, `holds` whether it is one of them: a
 * fair share, free ÷ (the others + 1), rounded up, never more than free.
 * One rule for every object that lends: a home to isolates and regional
 * copies, a regional copy to its isolates (relay-sublease.ts).
 *
 * @example
 * fairShare(10, 9, 2, false); // 3: 9 free among two holders and this one
 */
export function fairShare(need: number, free: number, holders: number, holds: boolean): number {
  if (need <= 0 || free <= 0) return 0;
  return Math.min(need, free, Math.ceil(free / (holders - (holds ? 1 : 0) + 1)));
}

/**
 * End the expired leases on `call`'s counter, charging what they held, and
 * return the quota still leased: what every other decision counts as taken.
 */
export function leasedOn(call: CounterCall, leases: LeaseBook, counters: CounterAccess, now: number): number {
  if (leases.empty) return 0;
  const id = leaseId(call);
  const expired = leases.expire(id, now);
  // Set aside when leased, so it fits; `mostThatFit` only guards against a counter reset meanwhile.
  if (expired > 0)
    counters.take(
      call,
      mostThatFit(expired, (k) => counters.fits(call, k)),
    );
  return leases.total(id);
}

/**
 * Take a sync: charge the hits the isolate reports (those its lease covered
 * are charged whole; any others while they fit beside everyone's leases),
 * take back what it gives back, and lease it up to what it wants, never
 * more than a fair share of what is free (free ÷ (holders + 1)) and never
 * more than fits beside every lease already out.
 */
export function absorb(call: AbsorbCall, leases: LeaseBook, counters: CounterAccess, now: number): CounterVerdict {
  const leased = leasedOn(call, leases, counters, now);
  const lease = call.lease;
  if (lease === undefined) {
    const accepted = mostThatFit(call.cost, (k) => counters.fits(call, k + leased));
    if (accepted > 0) counters.take(call, accepted);
    return { allowed: true, decisions: counters.peek(call), accepted };
  }
  const id = leaseId(call);
  const settled = leases.settle(id, lease.holder, call.cost, lease.release ?? 0, now);
  const covered = chargeCovered(call, settled.covered, counters, now);
  const others = leases.total(id);
  const extra = mostThatFit(settled.uncovered, (k) => counters.fits(call, k + others));
  if (extra > 0) counters.take(call, extra);
  const own = leases.reservedBy(id, lease.holder);
  const need = Math.max(0, Math.floor(lease.want) - own);
  let granted = 0;
  if (need > 0) {
    const out = leases.total(id);
    const free = Math.max(0, Math.min(...view(call, counters, out).map((d) => d.remaining)));
    granted = mostThatFit(fairShare(need, free, leases.holders(id), own > 0), (k) => counters.fits(call, out + k));
  }
  leases.grant(id, lease.holder, granted, Math.min(Math.max(0, lease.ttlMs), MAX_LEASE_TTL_MS), now);
  if (lease.syncNo !== undefined) leases.noteSync(id, lease.holder, lease.syncNo);
  const reserved = leases.reservedBy(id, lease.holder);
  // The counter as charged, leases not taken off: what every isolate converges to once the hits are in.
  return {
    allowed: true,
    decisions: counters.peek(call),
    accepted: settled.credited + covered + extra,
    reserved,
  };
}

/**
 * Charge the first `n` of a sync's hits, which its lease covered: each part
 * of `spentAt` at its own time, so hits allowed before a window edge count
 * in their window (docs/placement.md, "Hits charged in their window");
 * without valid parts, all at now. Returns how many were charged.
 */
function chargeCovered(call: AbsorbCall, n: number, counters: CounterAccess, now: number): number {
  const parts = spentParts(call, now);
  if (parts === undefined) {
    const covered = mostThatFit(n, (k) => counters.fits(call, k));
    if (covered > 0) counters.take(call, covered);
    return covered;
  }
  let left = n;
  let charged = 0;
  for (const part of parts) {
    if (left <= 0) break;
    const cost = Math.min(left, part.cost);
    const fit = mostThatFit(cost, (k) => counters.fits(call, k, part.at));
    if (fit > 0) counters.take(call, fit, part.at);
    charged += fit;
    left -= cost;
  }
  return charged;
}

/** The parts of `call.spentAt`, each no later than `now`, in time order; undefined unless they are whole hits at integer times summing to the call's cost. */
function spentParts(call: AbsorbCall, now: number): SpentAt[] | undefined {
  const parts = call.spentAt;
  if (!Array.isArray(parts) || parts.length === 0) return undefined;
  let sum = 0;
  let last = -Infinity;
  for (const part of parts) {
    if (!Number.isSafeInteger(part?.at) || !Number.isSafeInteger(part.cost) || part.cost <= 0 || part.at < last) return undefined;
    last = part.at;
    sum += part.cost;
  }
  return sum === call.cost ? parts.map((part) => ({ at: Math.min(part.at, now), cost: part.cost })) : undefined;
}

/**
 * Decide a plain call beside leased quota: it must fit with the leases
 * counted as taken. A rejection the leases alone caused is provisional
 * (they may come back sooner), shows what is free beside them, and says to
 * retry by the first lease's expiry at the latest.
 */
export function decideBesideLeases(call: CounterCall, leased: number, leases: LeaseBook, counters: CounterAccess, now: number): CounterVerdict {
  // A region's copy's hit comes out of its own lease first (docs/placement.md, "Bursts"): set aside already, so it fits.
  const from = "fromLease" in call ? call.fromLease : undefined;
  const taken = from === undefined ? undefined : leases.takeable(leaseId(call), from.holder, from.after, from.claimed, call.cost);
  const own = taken?.hits ?? 0;
  if (counters.fits(call, call.cost + leased - own)) {
    if (own > 0) leases.settle(leaseId(call), (from as { holder: string }).holder, own, 0, now);
    if (call.cost > 0) counters.take(call, call.cost);
    // The counter as charged, as every other answer reports it: what the isolates converge to.
    const allowed = { allowed: true, decisions: counters.peek(call) };
    return taken === undefined ? allowed : { ...allowed, taken };
  }
  const retryBy = Math.max(1, leases.firstExpiry(leaseId(call)) - now);
  const decisions = view(call, counters, leased).map((d) => (d.remaining >= call.cost ? d : { ...d, allowed: false, retryAfterMs: retryBy }));
  return { allowed: false, decisions, provisional: true };
}

/** The counter's windows as seen with `held` hits leased away from the caller. */
function view(call: CounterCall, counters: CounterAccess, held: number): Decision[] {
  return counters.peek(call).map((d) => (held > 0 ? { ...d, remaining: Math.max(0, d.remaining - held) } : d));
}
