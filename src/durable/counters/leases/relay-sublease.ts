/**
 * Hot keys at the region's copy (docs/placement.md, "Hot keys at the
 * region's copy"): a global key hot in a region is pre-counted in that
 * region's isolates from quota the region's copy lends them out of its own
 * regional lease, exactly as a key hot at its home is pre-counted from the
 * home's leases (docs/precount.md, "The bound"), one level further down.
 *
 * The copy keeps, per key, a lease book of what it lent each isolate
 * (`leases.ts`, the home's own book) and counts the sum, `subleased`, as
 * spent in everything else it decides from its lease: so with B its lease
 * from the home, P + I its hits not yet charged there (pending and in
 * flight) and S what isolates hold, P + I + S ≤ B at every instant, and the
 * isolates allow only what S covers. An isolate's report moves its spent
 * hits from S to P (charged at the home with the copy's next sync, so never
 * before they happened); an isolate's lease not renewed in time moves whole
 * from S to P, as the home charges an expired lease; a late report is taken
 * from that credit, never counted twice. A lease lent ends no later than
 * the copy's own lease as the copy counts it, which ends before the home's
 * count of it (docs/placement.md, "The bound"): the expiries nest at every
 * level, so nothing is charged before it happened.
 */
import type { AbsorbCall, CounterVerdict } from "../../../stored/wire-calls.ts";
import { leaseVerdict } from "./lease-verdict.ts";
import type { LeaseBook } from "./leases.ts";
import { fairShare, MAX_LEASE_TTL_MS } from "./precount-sync.ts";
import type { Held } from "./relay-lease.ts";

/** Bytes the leases a regional object lends isolates may take (a quarter of the home's book: LEASE_BOOK_BYTES). */
export const SUBLEASE_BOOK_BYTES = 256 * 1024;

/**
 * End the isolates' leases on `id` whose time is up: what they held counts as
 * spent by this region (pending, reported to the home at the next sync).
 *
 * @example
 * expireLent(book, id, held, now); // held.subleased is the book's total again
 */
export function expireLent(book: LeaseBook, id: string, held: Held, now: number): void {
  if (book.empty) return;
  const expired = book.expire(id, now);
  if (expired > 0) held.pending += expired;
  held.subleased = book.total(id);
}

/**
 * Take an isolate's sync on a key this copy holds (`held`): charge its
 * reported hits to this region (they go on to the home with the next sync),
 * take back what it gives back, and lend it up to what it wants out of what
 * the copy's lease has free: a fair share (free ÷ (holders + 1)), for no
 * longer than the copy's own lease lasts. The answer is the copy's view, less
 * its hits not yet charged at the home.
 *
 * @example
 * const verdict = lend(book, id, held, isolateSync, Date.now());
 */
export function lend(book: LeaseBook, id: string, held: Held, call: AbsorbCall, now: number): CounterVerdict {
  expireLent(book, id, held, now);
  const lease = call.lease;
  let accepted = call.cost;
  if (lease === undefined) held.pending += call.cost;
  else {
    const settled = book.settle(id, lease.holder, call.cost, lease.release ?? 0, now);
    // Hits its lease covered, and any no lease here covered (this copy restarted): the home charges them while they fit.
    held.pending += settled.covered + settled.uncovered;
    accepted = settled.credited + settled.covered + settled.uncovered;
    const own = book.reservedBy(id, lease.holder);
    // `|| 0`: a want that is not a number asks for nothing.
    const need = Math.max(0, Math.floor(lease.want) - own) || 0;
    // No later than this copy's own lease ends (its count, which starts before the home's).
    const ttl = Math.min(Math.max(0, lease.ttlMs), MAX_LEASE_TTL_MS, held.until - now);
    if (ttl > 0) {
      let granted = 0;
      if (need > 0) {
        const free = Math.max(0, held.budget - held.pending - held.inflight - held.asking - book.total(id));
        granted = fairShare(need, free, book.holders(id), own > 0);
        held.subAsk += need - granted;
      }
      book.grant(id, lease.holder, granted, ttl, now);
    } else if (need > 0) held.subAsk += need;
  }
  if (call.cost > 0 || (lease !== undefined && lease.want > 0)) held.lastHitAt = now;
  held.hitsSinceSync += call.cost;
  held.subleased = book.total(id);
  const reserved = lease === undefined ? undefined : book.reservedBy(id, lease.holder);
  const view = leaseVerdict(held, now);
  if (reserved === undefined) return { allowed: true, decisions: view.decisions, accepted };
  const leaseMs = reserved > 0 ? Math.max(0, book.endOf(id, (lease as { holder: string }).holder) - now) : 0;
  return { allowed: true, decisions: view.decisions, accepted, reserved, leaseMs };
}
