/**
 * Hits charged in the window they were allowed in, reported later
 * (src/algorithms/backdate.ts; docs/placement.md, "Hits charged in their
 * window"). Pure: hits at random instants, some reported only at a later
 * one; the counter they leave equals the counter of every hit charged at
 * its own instant, for the two windowed algorithms whose hits belong to an
 * aligned window.
 *
 * Breaks tried, each seen to fail here:
 * - fixed window: a past window's hits charged in the current one
 *   (`hit < current ? { state } : undefined` → `undefined`).
 * - sliding window counter: a previous window's hits added to the current
 *   count (`p: p + k, c` → `p, c: c + k`).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { chargedBefore } from "../../src/algorithms/backdate.ts";
import { getAlgorithm } from "../../src/algorithms/index.ts";
import type { AlgorithmName } from "../../src/algorithms/types.ts";

const spec = { limit: 1_000_000, windowMs: 10_000, burst: 1_000_000 };

/** Charge `hits` ([allowed at, reported at]) in report order, as an object does with a holder's syncs; the remaining at `end`. */
function charged(name: AlgorithmName, hits: readonly (readonly [number, number])[], end: number): number {
  const algorithm = getAlgorithm(name);
  let state: unknown;
  const order = [...hits].sort((a, b) => a[1] - b[1] || a[0] - b[0]);
  for (const [at, reported] of order) {
    const earlier = chargedBefore(name, state, spec, reported, at, 1);
    state = earlier === undefined ? algorithm.decide(state, spec, reported, 1).state : earlier.state;
  }
  return algorithm.decide(state, spec, end, 0).decision.remaining;
}

describe("hits charged in their window, reported later", () => {
  it("fixed window: a hit of a window over by its report takes nothing from the next", () => {
    const s = { w: 10_000, c: 3 };
    expect(chargedBefore("fixed_window", s, spec, 20_300, 19_800, 2)).toEqual({ state: s });
    expect(chargedBefore("fixed_window", s, spec, 19_900, 19_800, 2)).toBeUndefined();
    expect(chargedBefore("fixed_window", undefined, spec, 20_300, 19_800, 2)).toEqual({ state: undefined });
  });

  it("sliding window counter: a hit of the previous window counts in the previous count", () => {
    expect(chargedBefore("sliding_window_counter", { w: 10_000, p: 1, c: 3 }, spec, 20_300, 19_800, 2)).toEqual({ state: { w: 20_000, p: 5, c: 0 } });
    expect(chargedBefore("sliding_window_counter", { w: 20_000, p: 3, c: 1 }, spec, 20_300, 19_800, 2)).toEqual({ state: { w: 20_000, p: 5, c: 1 } });
    expect(chargedBefore("sliding_window_counter", { w: 0, p: 0, c: 3 }, spec, 20_300, 9_800, 2)).toEqual({ state: { w: 0, p: 0, c: 3 } });
  });

  it("leaves the other algorithms to a decision at the hit's instant", () => {
    for (const name of ["token_bucket", "leaky_bucket", "gcra", "sliding_window_log"] as const)
      expect(chargedBefore(name, undefined, spec, 20_300, 19_800, 1)).toBeUndefined();
  });

  for (const name of ["fixed_window", "sliding_window_counter"] as const)
    it(`${name}: hits reported up to 2 s late leave the counter of hits charged at their instants`, () => {
      fc.assert(
        fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 60_000 }), fc.integer({ min: 0, max: 2_000 }), fc.boolean()), { maxLength: 60 }), (raw) => {
          // Some hits are reported at once, others late (a holder's sync), each at a whole ms.
          const hits = raw.map(([at, delay, late]) => [at, at + (late ? delay : 0)] as const);
          const end = 63_000;
          expect(charged(name, hits, end)).toBe(
            charged(
              name,
              hits.map(([at]) => [at, at] as const),
              end,
            ),
          );
        }),
      );
    });
});
