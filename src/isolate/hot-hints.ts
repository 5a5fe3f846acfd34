/**
 * What an isolate has heard from the objects about hot counters
 * (docs/precount.md, "Hot keys lease on their own"): a counter whose
 * object's latest answer carried `hot` is pre-counted on the sync period
 * it named, as if its rule had `precount`; one whose latest answer did not
 * is decided strongly again. Only calls the plan marked `leasable` (plain,
 * not refundable, with somewhere to run syncs) are ever routed by a hint.
 *
 * Memory: one number per hinted counter, weighed in bytes with its id (ids
 * hold client keys), at most HOT_HINT_BYTES, the oldest hint dropped first
 * (a dropped hint only means strong decisions until the object hints again).
 */
import type { CounterVerdict } from "../stored/wire-calls.ts";

/** Bytes the hints of one isolate may take, their ids included. */
export const HOT_HINT_BYTES = 512 * 1024;

/** The longest sync period a hint may name (a lease lasts 2 × it + 1 s, at most 10 s). */
export const HINT_SYNC_MAX_MS = 4_500;

// A Map entry and its number, beside the UTF-16 of the id.
const RECORD_OVERHEAD_BYTES = 64;

/**
 * The sync periods objects named for hot counters, by pre-counting id.
 *
 * @example
 * const hints = new HotHints();
 * hints.learn(id, verdict); // verdict.hot: { syncMs: 200 }
 * hints.syncMsOf(id); // 200
 */
export class HotHints {
  private readonly hints = new Map<string, number>();
  private readonly capacity: number;
  private used = 0;

  /** @param capacity bytes the hints may take (HOT_HINT_BYTES). */
  constructor(capacity = HOT_HINT_BYTES) {
    this.capacity = capacity;
  }

  /** Counters hinted hot now. */
  get size(): number {
    return this.hints.size;
  }

  /** The sync period to pre-count counter `id` on, if its object said it is hot. */
  syncMsOf(id: string): number | undefined {
    return this.hints.size === 0 ? undefined : this.hints.get(id);
  }

  /** Take an object's answer on counter `id`: hot, with its period, or not (the hint is dropped). */
  learn(id: string, verdict: CounterVerdict): void {
    const syncMs = periodOf(verdict.hot?.syncMs);
    const known = this.hints.has(id);
    if (syncMs === undefined) {
      if (known) this.forget(id);
      return;
    }
    if (known) {
      this.hints.set(id, syncMs);
      return;
    }
    const size = recordBytes(id);
    if (size > this.capacity) return;
    for (const oldest of this.hints.keys()) {
      if (this.used + size <= this.capacity) break;
      this.forget(oldest);
    }
    this.hints.set(id, syncMs);
    this.used += size;
  }

  private forget(id: string): void {
    if (this.hints.delete(id)) this.used -= recordBytes(id);
  }
}

/** A whole number of ms between 1 and HINT_SYNC_MAX_MS, or undefined for anything else (an answer is read, not trusted blindly). */
function periodOf(syncMs: unknown): number | undefined {
  if (typeof syncMs !== "number" || !Number.isFinite(syncMs) || syncMs < 1) return undefined;
  return Math.min(HINT_SYNC_MAX_MS, Math.floor(syncMs));
}

function recordBytes(id: string): number {
  return 2 * id.length + RECORD_OVERHEAD_BYTES;
}
