/**
 * The answer to a hit allowed from a lease, written once for both holders
 * of leases: an isolate's pre-counted view (docs/precount.md) and a
 * regional object's relayed key (docs/placement.md).
 */
import type { Decision } from "../../../algorithms/types.ts";
import type { CounterVerdict } from "../../../stored/wire-calls.ts";

/** What a lease holder knows of its counter: the object's decisions as of `syncedAt`, and its own hits the object has not charged yet. */
export interface LeaseView {
  readonly snapshot: readonly Decision[];
  readonly syncedAt: number;
  /** Hits allowed here and not yet sent. */
  readonly pending: number;
  /** Hits sent whose answer has not arrived. */
  readonly inflight: number;
}

/**
 * The verdict for a hit allowed from the lease: the object's view less the
 * holder's hits not yet charged, its times aged to `now`.
 *
 * @example
 * leaseVerdict({ snapshot, syncedAt: 1_000, pending: 2, inflight: 1 }, 1_080).decisions[0].remaining; // snapshot's remaining − 3
 */
export function leaseVerdict(view: LeaseView, now: number): CounterVerdict {
  const aged = now - view.syncedAt;
  const uncharged = view.pending + view.inflight;
  return {
    allowed: true,
    // Every field written out (no spread): this runs for every hit decided from a lease.
    decisions: view.snapshot.map((d) => ({
      allowed: true,
      limit: d.limit,
      remaining: Math.max(0, d.remaining - uncharged),
      resetAfterMs: Math.max(0, d.resetAfterMs - aged),
      retryAfterMs: 0,
      // Hits taken since were taken now, and spending quota now leaves the effective window as it was.
      effectiveWindowMs: Math.max(1, d.effectiveWindowMs - aged),
    })),
  };
}
