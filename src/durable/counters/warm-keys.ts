/**
 * Relay only what pays (docs/placement.md, "Relay only what pays"): a home
 * object counts, per global key and region, the hits sent to it directly
 * from requests of that region, and answers `warm` once the key is warm
 * there. Only then do the region's isolates send the key's calls to the
 * region's copy, which holds a lease of it from the home.
 *
 * The rule: a key is warm in a region at its WARM_HITS-th hit from that
 * region in a row that came each less than WARM_GAP_MS after the one before
 * (about a request every 5 s or more often, kept up). A regional lease
 * outlives a gap shorter than RELAY_IDLE_MS (the same 5 s), so from then on
 * the key's hits in the region are decided there, at the cost of the few
 * calls that get and give back the lease; a key sent less often would have
 * given its lease back before its next hit, and pay a call to the home for
 * every hit plus the region's copy, so it stays direct: one call a request.
 *
 * Memory: one small record per (key, region) metered, weighed in bytes with
 * its id (ids are client keys), at most WARM_KEYS_BYTES, the least recently
 * hit dropped first (a dropped record only means the key warms again from
 * its next hits: where a call is decided, never what is admitted).
 */
import { LOCATION_HINTS } from "./regions.ts";
import type { CounterCall, CounterVerdict } from "../../stored/wire-calls.ts";
import { leaseId } from "./leases/precount-sync.ts";

/** Hits in a row, each within WARM_GAP_MS of the one before, that make a key warm in a region. */
export const WARM_HITS = 3;

/** The longest gap between a region's hits on a key that keeps them in a row: a regional lease's idle time (RELAY_IDLE_MS). */
export const WARM_GAP_MS = 5_000;

/** Bytes the records of one object may take, their ids included. */
export const WARM_KEYS_BYTES = 256 * 1024;

// A record's Map entry, object and numbers, beside the UTF-16 of its id.
const RECORD_OVERHEAD_BYTES = 80;

const HINTS: ReadonlySet<string> = new Set(LOCATION_HINTS);

interface Run {
  lastAt: number;
  hits: number;
}

/**
 * Per (key, region) runs of hits, at a home object.
 *
 * @example
 * const warm = new WarmKeys();
 * warm.note("key\u0001limit", "weur", now); // false, false, then true at the third hit within 5 s gaps
 */
export class WarmKeys {
  private readonly runs = new Map<string, Run>();
  private readonly capacity: number;
  private used = 0;

  /** @param capacity bytes the records may take (WARM_KEYS_BYTES). */
  constructor(capacity = WARM_KEYS_BYTES) {
    this.capacity = capacity;
  }

  /** Records kept now. */
  get size(): number {
    return this.runs.size;
  }

  /** Estimated bytes of the records: at most the capacity. */
  get bytes(): number {
    return this.used;
  }

  /** Count a hit on counter `id` from `region` at `now`; whether the key is warm there. */
  note(id: string, region: string, now: number): boolean {
    const key = `${region}\u0003${id}`;
    const run = this.runs.get(key);
    if (run !== undefined) {
      // Most recently hit last: the oldest goes first when full.
      this.runs.delete(key);
      this.runs.set(key, run);
      run.hits = now - run.lastAt < WARM_GAP_MS ? run.hits + 1 : 1;
      run.lastAt = now;
      return run.hits >= WARM_HITS;
    }
    const size = 2 * key.length + RECORD_OVERHEAD_BYTES;
    if (size > this.capacity) return false;
    for (const [oldest] of this.runs) {
      if (this.used + size <= this.capacity) break;
      this.runs.delete(oldest);
      this.used -= 2 * oldest.length + RECORD_OVERHEAD_BYTES;
    }
    this.runs.set(key, { lastAt: now, hits: 1 });
    this.used += size;
    return WARM_HITS <= 1;
  }
}

/**
 * Meter a plain call sent to its home from a region and, when its key is
 * warm there, answer `verdict` with `warm` (a `region` that is not a
 * location hint is ignored: the field is read, not trusted).
 *
 * @example
 * return withWarmHint(call, verdict, warmKeys, now);
 */
export function withWarmHint(call: CounterCall, verdict: CounterVerdict, warm: WarmKeys, now: number): CounterVerdict {
  const region = (call as { region?: unknown }).region;
  if (typeof region !== "string" || !HINTS.has(region) || call.cost <= 0) return verdict;
  return warm.note(leaseId(call), region, now) ? { ...verdict, warm: true } : verdict;
}
