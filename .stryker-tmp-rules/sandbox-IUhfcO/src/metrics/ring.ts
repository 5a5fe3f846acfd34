/**
 * Ring buffers of fixed-width periods (bucket number = floor(time / width)):
 * the last `size` periods are kept, each in the slot `period mod size`, so
 * memory is fixed however long traffic runs. A slot holding an older period
 * is cleared when a newer one arrives; a period older than its slot's is
 * dropped (it fell out of the ring).
 */
// @ts-nocheck


/**
 * Counts per period, `columns` numbers each, in one flat array.
 *
 * @example
 * const ring = new BucketRing(360, 4);
 * ring.add(172_000_000, [1, 0, 0, 0]);
 * ring.read(172_000_000); // [[172000000, [1, 0, 0, 0]]]
 */
export class BucketRing {
  readonly size: number;
  readonly columns: number;
  private readonly periods: Float64Array;
  private readonly counts: Float64Array;

  constructor(size: number, columns: number) {
    this.size = size;
    this.columns = columns;
    this.periods = new Float64Array(size).fill(-1);
    this.counts = new Float64Array(size * columns);
  }

  /** Add `values` to `period`; false when the period already fell out of the ring. */
  add(period: number, values: readonly number[]): boolean {
    const slot = period % this.size;
    const held = this.periods[slot];
    if (held > period) return false;
    const base = slot * this.columns;
    if (held !== period) {
      this.periods[slot] = period;
      this.counts.fill(0, base, base + this.columns);
    }
    for (let c = 0; c < this.columns; c++) this.counts[base + c] += values[c] ?? 0;
    return true;
  }

  /** The counts of `period` (zeros when not held). */
  get(period: number): number[] {
    const slot = period % this.size;
    if (this.periods[slot] !== period) return new Array(this.columns).fill(0);
    return Array.from(this.counts.subarray(slot * this.columns, (slot + 1) * this.columns));
  }

  /** Held periods within the `size` periods ending at `last`, oldest first, with their counts. */
  read(last: number): [number, number[]][] {
    const rows: [number, number[]][] = [];
    for (let period = last - this.size + 1; period <= last; period++) {
      if (period >= 0 && this.periods[period % this.size] === period) rows.push([period, this.get(period)]);
    }
    return rows;
  }

  /** The newest period held (−1 when none). */
  newest(): number {
    let newest = -1;
    for (const period of this.periods) newest = Math.max(newest, period);
    return newest;
  }
}

/**
 * One object per period (a summary, say), made on first use.
 *
 * @example
 * const ring = new SlotRing(6, () => new HeavyHitters());
 * ring.at(4_800)?.add("user=alice", 1);
 */
export class SlotRing<T> {
  readonly size: number;
  private readonly make: () => T;
  private readonly periods: number[];
  private readonly items: (T | undefined)[];

  constructor(size: number, make: () => T) {
    this.size = size;
    this.make = make;
    this.periods = new Array(size).fill(-1);
    this.items = new Array(size).fill(undefined);
  }

  /** The item of `period`, fresh if its slot held an older period; undefined when `period` fell out of the ring. */
  at(period: number): T | undefined {
    const slot = period % this.size;
    if (this.periods[slot] > period) return undefined;
    if (this.periods[slot] !== period) {
      this.periods[slot] = period;
      this.items[slot] = this.make();
    }
    return this.items[slot];
  }

  /** Held items within the `size` periods ending at `last`, oldest first. */
  read(last: number): [number, T][] {
    const rows: [number, T][] = [];
    for (let period = Math.max(0, last - this.size + 1); period <= last; period++) {
      const slot = period % this.size;
      const item = this.items[slot];
      if (this.periods[slot] === period && item !== undefined) rows.push([period, item]);
    }
    return rows;
  }
}
