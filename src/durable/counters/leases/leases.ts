/**
 * Quota a counter object has set aside for pre-counting isolates: leases
 * (docs: "Edge pre-counting", the bound). An isolate decides locally only
 * hits its lease covers, and every other decision on the counter counts the
 * leased quota as taken, so the hits allowed never exceed what the counter
 * admits, whatever the number of isolates. An isolate reports the hits it
 * spent at its next sync (they are charged then, never earlier than they
 * happened) and gives back what it will not spend; a lease not renewed
 * within its time to live is charged whole, as if spent, so a vanished
 * isolate costs at most its lease, once.
 *
 * Memory: one record per isolate syncing a counter, dropped when it holds
 * nothing and owes nothing, weighed in bytes and bounded by the book's
 * capacity (LEASE_BOOK_BYTES, part of the object's MEMORY_BYTES): a full
 * book grants no new lease, so isolates ask the object for each hit instead
 * (never more admitted, only fewer decided locally).
 */
/** Bytes the lease records of one object may take: an eighth of its MEMORY_BYTES (counter-cache.ts, not imported: it imports this). */
export const LEASE_BOOK_BYTES = 1024 * 1024;

// A record's Map entries, object and numbers, beside the UTF-16 of its counter and holder names.
const RECORD_OVERHEAD_BYTES = 128;

export type { LeaseRequest } from "../../../stored/wire-calls.ts";

interface Lease {
  /** Leased and not yet reported spent or given back. */
  reserved: number;
  /** Charged when the lease expired, not yet reported: reports are taken from it first, so nothing is charged twice. */
  credit: number;
  expiresAt: number;
  /** The number of the holder's last sync taken (a region's copy numbers them: LeaseRequest.syncNo); -1: none numbered. */
  lastSync: number;
}

/** How an isolate's report of spent hits was covered. */
export interface Settled {
  /** Hits its lease covered: charge them (they fit: they were set aside). */
  readonly covered: number;
  /** Hits already charged when its lease expired. */
  readonly credited: number;
  /** Hits no lease covered (an object restarted, a report after its record was dropped): charge what still fits. */
  readonly uncovered: number;
}

/** Credit of an expired lease is kept this long for a late report, then dropped. */
export const CREDIT_KEPT_MS = 60_000;

/**
 * Leases per counter (the counter key and its limit ids) and holder.
 *
 * @example
 * const book = new LeaseBook();
 * const expired = book.expire(counter, now); // charge these
 * const { covered, uncovered } = book.settle(counter, holder, spent, release, now);
 * book.grant(counter, holder, 10, 1_200, now);
 * book.total(counter); // leased quota every other decision counts as taken
 */
export class LeaseBook {
  private readonly counters = new Map<string, Map<string, Lease>>();
  private used = 0;
  private readonly capacity: number;

  /** @param capacity bytes the records may take (LEASE_BOOK_BYTES). */
  constructor(capacity = LEASE_BOOK_BYTES) {
    this.capacity = capacity;
  }

  /** Estimated bytes of the records held: at most `capacity`. */
  get bytes(): number {
    return this.used;
  }

  /** Whether any counter has a lease or credit (the common case is none: one check per decision). */
  get empty(): boolean {
    return this.counters.size === 0;
  }

  /** Leased quota on `counter`, over every holder. */
  total(counter: string): number {
    const leases = this.counters.get(counter);
    if (leases === undefined) return 0;
    let total = 0;
    for (const lease of leases.values()) total += lease.reserved;
    return total;
  }

  /** Holders with quota leased on `counter`. */
  holders(counter: string): number {
    const leases = this.counters.get(counter);
    if (leases === undefined) return 0;
    let n = 0;
    for (const lease of leases.values()) if (lease.reserved > 0) n += 1;
    return n;
  }

  /** What `holder` holds on `counter`. */
  reservedBy(counter: string, holder: string): number {
    return this.counters.get(counter)?.get(holder)?.reserved ?? 0;
  }

  /** When `holder`'s lease on `counter` ends (0: it holds none). */
  endOf(counter: string, holder: string): number {
    const lease = this.counters.get(counter)?.get(holder);
    return lease === undefined || lease.reserved === 0 ? 0 : lease.expiresAt;
  }

  /** When the first lease on `counter` expires (Infinity: none). */
  firstExpiry(counter: string): number {
    let first = Infinity;
    for (const lease of this.counters.get(counter)?.values() ?? []) if (lease.reserved > 0) first = Math.min(first, lease.expiresAt);
    return first;
  }

  /**
   * End the leases on `counter` whose time is up: their quota counts as
   * spent (the caller charges the sum returned) and becomes credit against
   * the holder's late report. Records holding nothing are dropped.
   */
  expire(counter: string, now: number): number {
    const leases = this.counters.get(counter);
    if (leases === undefined) return 0;
    let charged = 0;
    for (const [holder, lease] of leases) {
      if (lease.reserved > 0 && now >= lease.expiresAt) {
        charged += lease.reserved;
        lease.credit += lease.reserved;
        lease.reserved = 0;
      }
      if (lease.reserved === 0 && (lease.credit === 0 || now >= lease.expiresAt + CREDIT_KEPT_MS)) {
        leases.delete(holder);
        this.used -= recordBytes(counter, holder);
      }
    }
    if (leases.size === 0) this.counters.delete(counter);
    return charged;
  }

  /** Take `holder`'s report: `spent` hits, then `release` hits given back. */
  settle(counter: string, holder: string, spent: number, release: number, now: number): Settled {
    const lease = this.counters.get(counter)?.get(holder);
    if (lease === undefined) return { covered: 0, credited: 0, uncovered: spent };
    const credited = Math.min(spent, lease.credit);
    lease.credit -= credited;
    const covered = Math.min(spent - credited, lease.reserved);
    lease.reserved -= covered;
    lease.reserved -= Math.min(release, lease.reserved);
    if (lease.reserved === 0 && lease.credit === 0) this.drop(counter, holder);
    else lease.expiresAt = Math.max(lease.expiresAt, now);
    return { covered, credited, uncovered: spent - credited - covered };
  }

  /**
   * Of a hit a holder asks for beside its lease (FromLease), how much may be
   * taken from that lease: what it holds beyond `claimed`, once its sync
   * numbered `after` is in (before that, its lease may be spent in ways not
   * claimed yet); and the number of its last sync taken.
   */
  takeable(counter: string, holder: string, after: number, claimed: number, cost: number): { hits: number; after: number } {
    const lease = this.counters.get(counter)?.get(holder);
    if (lease === undefined || !(after >= 0) || lease.lastSync < after || !(claimed >= 0)) return { hits: 0, after: lease?.lastSync ?? -1 };
    return { hits: Math.max(0, Math.min(cost, lease.reserved - claimed)), after: lease.lastSync };
  }

  /** Note that `holder`'s sync numbered `syncNo` was taken (after `grant`). */
  noteSync(counter: string, holder: string, syncNo: number): void {
    const lease = this.counters.get(counter)?.get(holder);
    if (lease !== undefined && Number.isSafeInteger(syncNo) && syncNo > lease.lastSync) lease.lastSync = syncNo;
  }

  /** Lease `amount` more to `holder` (0 renews its lease's time only). */
  grant(counter: string, holder: string, amount: number, ttlMs: number, now: number): void {
    let leases = this.counters.get(counter);
    const lease = leases?.get(holder);
    if (lease !== undefined) {
      lease.reserved += amount;
      lease.expiresAt = now + ttlMs;
      return;
    }
    if (amount <= 0) return;
    const size = recordBytes(counter, holder);
    // Full: no new record. The holder's reservedBy stays 0, so it is told it holds nothing.
    if (this.used + size > this.capacity) return;
    if (leases === undefined) this.counters.set(counter, (leases = new Map()));
    leases.set(holder, { reserved: amount, credit: 0, expiresAt: now + ttlMs, lastSync: -1 });
    this.used += size;
  }

  private drop(counter: string, holder: string): void {
    const leases = this.counters.get(counter);
    if (leases?.delete(holder)) this.used -= recordBytes(counter, holder);
    if (leases?.size === 0) this.counters.delete(counter);
  }
}

function recordBytes(counter: string, holder: string): number {
  return 2 * (counter.length + holder.length) + RECORD_OVERHEAD_BYTES;
}
