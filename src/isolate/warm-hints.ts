/**
 * Which global keys are warm in this isolate's region (docs/placement.md,
 * "Relay only what pays"): a key's calls go to its home directly, carrying
 * the request's region, until the home answers that the key is warm there;
 * from then on this isolate sends them to the region's copy, as long as it
 * keeps seeing the key at least every WARM_KEEP_MS. A key quiet here that
 * long goes to its home again, which warms it again from its next hits.
 *
 * Memory: one number per warm key, weighed in bytes with its id (ids hold
 * client keys), at most WARM_HINT_BYTES, the least recently used dropped
 * first (a dropped key only goes to its home again: where it is decided,
 * never what is admitted).
 */
import type { CounterCall } from "../stored/wire-calls.ts";

/** Bytes the warm keys of one isolate may take, their ids included. */
export const WARM_HINT_BYTES = 256 * 1024;

/** A warm key not seen in this isolate for this long goes to its home again (twice a regional lease's idle time). */
export const WARM_KEEP_MS = 10_000;

// A Map entry and its number, beside the UTF-16 of the id.
const RECORD_OVERHEAD_BYTES = 64;

/**
 * The warm key of `call` in `region`: its key and windows, and the region.
 *
 * @example
 * warmId(call, "weur"); // "weur\u0003<key>\u0001<limit id>"
 */
export function warmId(call: CounterCall, region: string): string {
  let id = `${region}\u0003${call.key}`;
  for (const limit of call.limits) id += `\u0001${limit.id}`;
  return id;
}

/**
 * The keys homes said are warm in this isolate's region, and when each was last used.
 *
 * @example
 * const warm = new WarmHints();
 * warm.learn(warmId(call, "weur"), now);
 * warm.isWarm(warmId(call, "weur"), now + 1_000); // true: relay it
 */
export class WarmHints {
  private readonly lastUsed = new Map<string, number>();
  private readonly capacity: number;
  private used = 0;

  /** @param capacity bytes the keys may take (WARM_HINT_BYTES). */
  constructor(capacity = WARM_HINT_BYTES) {
    this.capacity = capacity;
  }

  /** Keys warm now (some may have gone quiet since). */
  get size(): number {
    return this.lastUsed.size;
  }

  /** Whether the key `id` is warm here at `now` (and so relayed): a use, which keeps it warm for WARM_KEEP_MS more. */
  isWarm(id: string, now: number): boolean {
    if (this.lastUsed.size === 0) return false;
    const last = this.lastUsed.get(id);
    if (last === undefined) return false;
    this.lastUsed.delete(id);
    if (now - last >= WARM_KEEP_MS) {
      this.used -= recordBytes(id);
      return false;
    }
    this.lastUsed.set(id, now);
    return true;
  }

  /** A home answered that key `id` is warm in this region. */
  learn(id: string, now: number): void {
    if (this.lastUsed.has(id)) {
      this.lastUsed.delete(id);
      this.lastUsed.set(id, now);
      return;
    }
    const size = recordBytes(id);
    if (size > this.capacity) return;
    for (const oldest of this.lastUsed.keys()) {
      if (this.used + size <= this.capacity) break;
      this.lastUsed.delete(oldest);
      this.used -= recordBytes(oldest);
    }
    this.lastUsed.set(id, now);
    this.used += size;
  }
}

function recordBytes(id: string): number {
  return 2 * id.length + RECORD_OVERHEAD_BYTES;
}
