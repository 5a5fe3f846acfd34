/**
 * The keys most limited: a Misra–Gries heavy-hitters summary (the
 * deterministic twin of space-saving: subtract a space-saving summary's
 * smallest counter from every counter and you have this one). Chosen over
 * plain space-saving because its merge has a proven error bound however many
 * summaries are merged, in any order (Agarwal et al., "Mergeable Summaries",
 * 2012): each isolate keeps one, and the MetricsObject merges them.
 *
 * Bound (docs/dashboard.md, "Error bound"): with `k` counters over a stream of
 * total weight N (every isolate's hits together), each kept count `c` of a key
 * whose true count is `f` satisfies `f - error ≤ c ≤ f`, where
 * `error ≤ N / (k + 1)`; every key with `f > error` is kept. At most `k` keys
 * are held, whatever the number of distinct keys (a key scan stays bounded).
 */
// @ts-nocheck


/** Counters per summary: the most keys one summary holds. */
export const SKETCH_COUNTERS = 64;

/** Longest key kept, in UTF-16 units; a longer key is cut and ends with "…". */
export const MAX_KEY_CHARS = 128;

/** A summary as plain data, to cross RPC and to be stored. */
export interface SketchData {
  /** Sum of every weight added (N). */
  readonly total: number;
  /** How far below its true count any key's count may be (also the most an absent key may have). */
  readonly error: number;
  /** Kept keys and their counts (lower bounds). */
  readonly entries: readonly (readonly [string, number])[];
}

/**
 * A bounded heavy-hitters summary.
 *
 * @example
 * const hh = new HeavyHitters();
 * hh.add("user=alice", 3);
 * hh.top(10); // [["user=alice", 3]]
 */
export class HeavyHitters {
  private readonly k: number;
  private counts = new Map<string, number>();
  private total = 0;
  private error = 0;

  constructor(k = SKETCH_COUNTERS) {
    this.k = k;
  }

  /** Keys held (never more than `k`). */
  get size(): number {
    return this.counts.size;
  }

  /** Count `weight` (> 0) more for `key`. */
  add(key: string, weight: number): void {
    this.total += weight;
    this.counts.set(key, (this.counts.get(key) ?? 0) + weight);
    if (this.counts.size > this.k) this.shrink();
  }

  /** Merge another summary in (its keys' counts add, its error adds). */
  merge(other: SketchData): void {
    this.total += other.total;
    this.error += other.error;
    for (const [key, count] of other.entries) this.counts.set(key, (this.counts.get(key) ?? 0) + count);
    if (this.counts.size > this.k) this.shrink();
  }

  /**
   * The `n` largest counts, largest first (ties by key, so the order is stable).
   *
   * @example
   * hh.top(3); // [["ip=192.0.2.1", 120], ["ip=192.0.2.7", 40], ["ip=198.51.100.2", 12]]
   */
  top(n: number): [string, number][] {
    return [...this.counts].sort(([ka, a], [kb, b]) => b - a || (ka < kb ? -1 : ka > kb ? 1 : 0)).slice(0, n);
  }

  /** The summary as plain data. */
  toData(): SketchData {
    return { total: this.total, error: this.error, entries: [...this.counts] };
  }

  /** A summary from plain data. */
  static from(data: SketchData, k = SKETCH_COUNTERS): HeavyHitters {
    const hh = new HeavyHitters(k);
    hh.merge(data);
    return hh;
  }

  // Subtracting the (k+1)-th largest count m from every count empties at
  // least one counter past the k-th and takes at least (k+1)·m from the sum of
  // counts, so the error added (m) stays within (N − sum of counts) / (k+1).
  private shrink(): void {
    const values = [...this.counts.values()];
    // One new key over a full summary (the common case): m is the smallest count.
    const m = values.length === this.k + 1 ? Math.min(...values) : values.sort((a, b) => b - a)[this.k];
    const next = new Map<string, number>();
    for (const [key, count] of this.counts) if (count > m) next.set(key, count - m);
    this.counts = next;
    this.error += m;
  }
}

/**
 * A key as a summary holds it: at most MAX_KEY_CHARS long.
 *
 * @example
 * boundedKey("user=alice"); // "user=alice"
 */
export function boundedKey(key: string): string {
  return key.length <= MAX_KEY_CHARS ? key : `${key.slice(0, MAX_KEY_CHARS - 1)}…`;
}
