// The heavy-hitters summary against exact counts: the stated bound
// (docs/dashboard.md, "Error bound") after any split of a stream across
// isolates and any order of merges, the true heavy hitters of seeded skewed
// traffic, and a bounded size under a key scan.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HeavyHitters, MAX_KEY_CHARS, SKETCH_COUNTERS, boundedKey } from "../../src/metrics/sketch.ts";

type Hit = readonly [key: string, weight: number];

function exact(hits: readonly Hit[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const [key, weight] of hits) counts.set(key, (counts.get(key) ?? 0) + weight);
  return counts;
}

// The stream split over `parts` isolates, each isolate's summary merged into a
// running merge in a shuffled order, as the MetricsObject receives them.
function summarize(hits: readonly Hit[], parts: readonly number[], order: readonly number[], k: number): HeavyHitters {
  const isolates = Array.from({ length: Math.max(...parts) + 1 }, () => new HeavyHitters(k));
  for (const [i, [key, weight]] of hits.entries()) isolates[parts[i % parts.length]].add(key, weight);
  const merged = new HeavyHitters(k);
  for (const i of order.length > 0 ? order : isolates.keys()) merged.merge(isolates[i % isolates.length].toData());
  return merged;
}

function checkBound(summary: HeavyHitters, truth: Map<string, number>, k: number): void {
  const { total, error, entries } = summary.toData();
  const n = [...truth.values()].reduce((a, b) => a + b, 0);
  expect(total).toBe(n);
  expect(error).toBeLessThanOrEqual(n / (k + 1));
  expect(entries.length).toBeLessThanOrEqual(k);
  const kept = new Map(entries);
  for (const [key, f] of truth) {
    const c = kept.get(key) ?? 0;
    expect(c).toBeLessThanOrEqual(f);
    expect(f - c).toBeLessThanOrEqual(error);
    if (f > n / (k + 1)) expect(kept.has(key)).toBe(true);
  }
}

describe("HeavyHitters", () => {
  it("stays within f - error <= count <= f, error <= N/(k+1), after any split across isolates and merge order", () => {
    const hit = fc.tuple(fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz".split("")), fc.integer({ min: 1, max: 5 }));
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.array(hit, { maxLength: 300 }),
        fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 1, maxLength: 20 }),
        fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 6 }),
        (k, hits, parts, order) => {
          // Each isolate merged exactly once: the order is a permutation of the isolates used.
          const isolates = Math.max(...parts) + 1;
          const permutation = [...new Set([...order, ...Array.from({ length: isolates }, (_, i) => i)])].filter((i) => i < isolates);
          checkBound(summarize(hits, parts, permutation, k), exact(hits), k);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("finds the true heavy hitters of seeded Zipf-like traffic over 4 isolates, within the bound", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 - 1 }), (seed) => {
        let state = seed;
        const random = () => (state = (Math.imul(state, 48271) >>> 0) % 2147483647) / 2147483647;
        // Key i drawn with probability ∝ 1/(i+1)^1.2 over 5,000 keys.
        const weights = Array.from({ length: 5000 }, (_, i) => 1 / (i + 1) ** 1.2);
        const cumulative: number[] = [];
        weights.reduce((sum, w, i) => (cumulative[i] = sum + w), 0);
        const total = cumulative[cumulative.length - 1];
        const hits: Hit[] = Array.from({ length: 20_000 }, () => {
          const x = random() * total;
          let lo = 0;
          let hi = cumulative.length - 1;
          while (lo < hi) {
            const mid = (lo + hi) >> 1;
            if (cumulative[mid] < x) lo = mid + 1;
            else hi = mid;
          }
          return [`ip=10.0.${lo >> 8}.${lo & 255}`, 1] as const;
        });
        const summary = summarize(hits, [0, 1, 2, 3], [2, 0, 3, 1], SKETCH_COUNTERS);
        const truth = exact(hits);
        checkBound(summary, truth, SKETCH_COUNTERS);
        const threshold = hits.length / (SKETCH_COUNTERS + 1);
        const heavy = [...truth].filter(([, f]) => f > threshold).map(([key]) => key);
        expect(heavy.length).toBeGreaterThan(0);
        const shown = new Set(summary.top(SKETCH_COUNTERS).map(([key]) => key));
        for (const key of heavy) expect(shown.has(key)).toBe(true);
      }),
      { numRuns: 10 },
    );
  });

  it("holds at most k keys under a scan of 100,000 distinct keys, and still finds the one repeated key", () => {
    const hh = new HeavyHitters();
    for (let i = 0; i < 100_000; i++) {
      hh.add(`scan=${i}`, 1);
      if (i % 10 === 0) hh.add("user=attacker", 1);
      expect(hh.size).toBeLessThanOrEqual(SKETCH_COUNTERS);
    }
    expect(hh.top(1)[0][0]).toBe("user=attacker");
  });

  it("cuts keys longer than MAX_KEY_CHARS", () => {
    expect(boundedKey("k=v")).toBe("k=v");
    const long = boundedKey("x".repeat(1000));
    expect(long).toHaveLength(MAX_KEY_CHARS);
    expect(long.endsWith("…")).toBe(true);
  });
});
