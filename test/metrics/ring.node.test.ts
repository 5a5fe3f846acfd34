// Ring buffers against a plain list of every add: reading the last `size`
// periods gives exactly the sums of the adds in those periods.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BucketRing, SlotRing } from "../../src/metrics/ring.ts";

// Adds in roughly increasing time, with some late ones, as isolates send them.
const adds = fc.array(fc.tuple(fc.integer({ min: 0, max: 60 }), fc.integer({ min: 1, max: 9 })), { maxLength: 120 });

describe("BucketRing", () => {
  it("reads the sums of exactly the adds within the last size periods", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 12 }), adds, fc.integer({ min: 0, max: 20 }), (size, steps, ahead) => {
        const ring = new BucketRing(size, 2);
        let clock = 0;
        const kept: [number, number][] = [];
        for (const [jump, value] of steps) {
          clock += jump % 3;
          // Late by up to 2 * size periods: older than the ring is dropped.
          const period = Math.max(0, clock - (jump % (2 * size + 1)));
          const accepted = ring.add(period, [value, 2 * value]);
          // Refused exactly when a newer period already holds the slot.
          expect(accepted).toBe(kept.every(([p]) => p % size !== period % size || p <= period));
          if (accepted) kept.push([period, value]);
        }
        const last = clock + ahead;
        const expected = new Map<number, number>();
        for (const [period, value] of kept) if (period > last - size) expected.set(period, (expected.get(period) ?? 0) + value);
        const read = ring.read(last);
        expect(read.map(([p]) => p)).toEqual([...expected.keys()].sort((a, b) => a - b));
        for (const [period, counts] of read) expect(counts).toEqual([expected.get(period), 2 * (expected.get(period) ?? 0)]);
      }),
      { numRuns: 500 },
    );
  });

  it("clears a slot when a newer period takes it", () => {
    const ring = new BucketRing(3, 1);
    ring.add(1, [5]);
    ring.add(4, [7]);
    expect(ring.add(1, [1])).toBe(false);
    expect(ring.read(4)).toEqual([[4, [7]]]);
    expect(ring.newest()).toBe(4);
  });
});

describe("SlotRing", () => {
  it("keeps one item per period for the last size periods", () => {
    const ring = new SlotRing(2, () => ({ n: 0 }));
    ring.at(10)!.n += 1;
    ring.at(11)!.n += 2;
    ring.at(10)!.n += 1;
    expect(ring.read(11)).toEqual([
      [10, { n: 2 }],
      [11, { n: 2 }],
    ]);
    ring.at(12)!.n += 5;
    expect(ring.at(10)).toBeUndefined();
    expect(ring.read(12)).toEqual([
      [11, { n: 2 }],
      [12, { n: 5 }],
    ]);
  });
});
