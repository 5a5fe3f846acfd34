/**
 * What an isolate remembers of a local counter it had to forget while it
 * still counted (docs/reliability.md, "Failure mode"): its key's
 * fingerprint, how full its fullest window was, and until when any of its
 * hits count. LocalCounters keeps at most LOCAL_COUNTER_KEYS counters; one
 * pushed out by a flood of other keys leaves a trace here, and the key
 * starts again from it (as full as it was), so a flood cannot give a key
 * its limit back. A fixed table of BUCKETS × WAYS entries (about 400 KB):
 * a trace is displaced only by WAYS live traces at least as full in its
 * bucket, the bucket chosen by a hash keyed per isolate, so no client can
 * aim a flood at one key's bucket.
 */

/** Buckets of the table; WAYS traces each. */
export const TRACE_BUCKETS = 4_096;
const WAYS = 4;
// Per entry: fingerprint, until (local clock), used share of the fullest window (0–1).
const FIELDS = 3;

/**
 * Traces of forgotten counters.
 *
 * @example
 * const traces = new LocalTraces();
 * traces.leave(id, quietAt, 0.8, now);
 * traces.share(id, now, false); // 0.8 until quietAt, then 0
 */
export class LocalTraces {
  private readonly table = new Float64Array(TRACE_BUCKETS * WAYS * FIELDS);
  private readonly seed: number;

  constructor(seed = crypto.getRandomValues(new Uint32Array(1))[0]) {
    this.seed = seed >>> 0;
  }

  /**
   * Remember at `now` that `id`'s counter was `share` full (0–1) and counts
   * until `until`; a trace of the same key already there keeps the larger of
   * each. In a full bucket the trace lost is the one that ended, else the
   * least full, else the one that ends first: a flood displaces a key's
   * trace only with four live ones at least as full in the same bucket.
   *
   * @example
   * traces.leave(id, quietAt, usedShare, now);
   */
  leave(id: string, until: number, share: number, now: number): void {
    const { base, print } = this.place(id);
    let slot = -1;
    for (let way = 0; way < WAYS; way++) {
      const at = base + way * FIELDS;
      if (this.table[at] === print && this.table[at + 1] > now) {
        this.table[at + 1] = Math.max(this.table[at + 1], until);
        this.table[at + 2] = Math.max(this.table[at + 2], share);
        return;
      }
      if (slot < 0 || this.lighter(at, slot, now)) slot = at;
    }
    // Room is made by the trace that gives least back when lost: an ended one, else the least full, else the first to end.
    if (!this.lighterThan(slot, now, share, until)) return;
    this.table[slot] = print;
    this.table[slot + 1] = until;
    this.table[slot + 2] = share;
  }

  /**
   * How full `id`'s forgotten counter was, if its trace still counts at
   * `now` (0: no trace); `take` removes the trace (the counter is kept
   * again), else it is only read.
   *
   * @example
   * const share = traces.share(id, now, true);
   */
  share(id: string, now: number, take: boolean): number {
    const { base, print } = this.place(id);
    for (let way = 0; way < WAYS; way++) {
      const at = base + way * FIELDS;
      if (this.table[at] !== print || this.table[at + 1] <= now) continue;
      if (take) this.table[at + 1] = 0;
      return this.table[at + 2];
    }
    return 0;
  }

  // Whether the entry at `a` gives less back when lost than the one at `b`.
  private lighter(a: number, b: number, now: number): boolean {
    return this.lighterThan(a, now, this.table[b + 1] > now ? this.table[b + 2] : -1, this.table[b + 1]);
  }

  // Whether the entry at `at` gives less back when lost than a trace of `share` until `until` (share -1: an ended one).
  private lighterThan(at: number, now: number, share: number, until: number): boolean {
    const mine = this.table[at + 1] > now ? this.table[at + 2] : -1;
    if (mine !== share) return mine < share;
    return this.table[at + 1] < until;
  }

  // The bucket's first field and the key's fingerprint (never 0, so an empty entry matches no key).
  private place(id: string): { base: number; print: number } {
    let a = this.seed ^ 0x811c9dc5;
    let b = Math.imul(this.seed, 0x9e3779b1) ^ 0x01000193;
    for (let i = 0; i < id.length; i++) {
      const c = id.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x5bd1e995);
      b ^= b >>> 15;
    }
    a = fmix(a);
    b = fmix(b ^ a);
    return { base: ((a >>> 0) % TRACE_BUCKETS) * WAYS * FIELDS, print: b >>> 0 || 1 };
  }
}

// MurmurHash3's finalizer: every input bit reaches every output bit.
function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
