import { describe, expect, it } from "vitest";
import { slidingWindowCounter } from "../../src/algorithms/sliding-window-counter.ts";
import { counter, decision as d } from "./drive.ts";
import { ensure, largeScenarios, runProperty, slidingBound, smallScenarios, type Subject } from "./harness.ts";
import { slidingCounterOracle, hitsPerWindow } from "./oracles.ts";

// 10 per second; windows aligned at multiples of 1000 ms.
const spec = { limit: 10, windowMs: 1000, burst: 10 };
const YEAR = 31_536_000_000;

describe("sliding window counter", () => {
  it("a fresh counter counts in the current window; the estimate is 0 again two windows on", () => {
    expect(counter(slidingWindowCounter, spec).hit(500)).toEqual(d(true, 10, 9, 1500, 0));
  });

  it("weights the previous window by the part of it still inside the sliding window", () => {
    const c = counter(slidingWindowCounter, spec);
    expect(c.hit(500, 10)).toEqual(d(true, 10, 0, 1500, 0));
    // At 1000 the estimate is 10 × 1 + 0; it is 9 (room for 1) from 1100 on.
    expect(c.hit(1000)).toEqual(d(false, 10, 0, 1000, 100));
    // 10 × 901/1000 + 1 = 10.01 > 10.
    expect(c.hit(1099)).toEqual(d(false, 10, 0, 901, 1));
    expect(c.hit(1100)).toEqual(d(true, 10, 0, 1900, 0));
    // 10 × 750/1000 + 1 = 8.5: one whole request left, not two.
    expect(c.hit(1250, 0)).toEqual(d(true, 10, 1, 1750, 0));
    // Cost 2 needs the estimate at 8: 10 × 700/1000 + 1, at 1300.
    expect(c.hit(1250, 2)).toEqual(d(false, 10, 1, 1750, 50));
    expect(c.hit(1299, 2).allowed).toBe(false);
    expect(c.hit(1300, 2)).toEqual(d(true, 10, 0, 1700, 0));
  });

  it("when the current window is full, waits into the next one", () => {
    const c = counter(slidingWindowCounter, spec);
    c.hit(0, 10);
    // Next window: 10 × (1000 − e)/1000 + 1 ≤ 10 from e = 100, i.e. 1100.
    expect(c.hit(10)).toEqual(d(false, 10, 0, 1990, 1090));
    expect(c.hit(1099).allowed).toBe(false);
    expect(c.hit(1100).allowed).toBe(true);
  });

  it("a request of the whole limit waits until both windows are empty", () => {
    const c = counter(slidingWindowCounter, { limit: 2, windowMs: 1000, burst: 2 });
    c.hit(0, 2);
    expect(c.hit(1, 2)).toEqual(d(false, 2, 0, 1999, 1999));
    expect(c.hit(1999, 2).allowed).toBe(false);
    expect(c.hit(2000, 2)).toEqual(d(true, 2, 0, 2000, 0));
  });

  it("a previous window that leaves no room in this one defers to the next window start", () => {
    const c = counter(slidingWindowCounter, { limit: 2, windowMs: 1000, burst: 2 });
    c.hit(0, 2);
    // At 1999 the estimate is still 2 × 1/1000 > 0, so cost 2 waits for 2000.
    expect(c.hit(1000, 2)).toEqual(d(false, 2, 0, 1000, 1000));
  });

  it("allows exactly at the boundary where the estimate hits the limit", () => {
    const w = { limit: 31, windowMs: 10, burst: 31 };
    const a = counter(slidingWindowCounter, w);
    a.hit(0, 30);
    // e = 9: 30 × 1/10 = 3 exactly, and 3 + 28 = 31.
    expect(a.hit(19, 28)).toEqual(d(true, 31, 0, 11, 0));
    const b = counter(slidingWindowCounter, w);
    b.hit(0, 30);
    expect(b.hit(19, 29)).toEqual(d(false, 31, 28, 1, 1));
  });

  it("peeks without counting", () => {
    const c = counter(slidingWindowCounter, spec);
    expect(c.hit(0, 0)).toEqual(d(true, 10, 10, 0, 0));
    c.hit(0, 4);
    const before = c.state;
    expect(c.hit(1500, 0)).toEqual(d(true, 10, 8, 500, 0));
    expect(c.state).toBe(before);
  });

  it("limit 0 and cost above the limit never fit", () => {
    expect(counter(slidingWindowCounter, { limit: 0, windowMs: 1000, burst: 0 }).hit(0, 0)).toEqual(d(false, 0, 0, 0, Infinity));
    const c = counter(slidingWindowCounter, spec);
    c.hit(0, 4);
    expect(c.hit(0, 11)).toEqual(d(false, 10, 6, 2000, Infinity));
  });

  it("stays exact at 1e9 per year, where limit × window passes 2^53", () => {
    const big = { limit: 1e9, windowMs: YEAR, burst: 1e9 };
    const start = 54 * YEAR; // an aligned year, in 2023
    const c = counter(slidingWindowCounter, big);
    c.hit(start, 1e9);
    const mid = start + YEAR + YEAR / 2;
    expect(c.hit(mid, 0)).toEqual(d(true, 1e9, 5e8, YEAR / 2, 0));
    // Needs 1e9 × (W − e) ≤ (5e8 − 1) × W: e ≥ W/2 + 31.536, so 32 ms on.
    expect(c.hit(mid, 5e8 + 1).retryAfterMs).toBe(32);
    expect(c.hit(mid + 31, 5e8 + 1).allowed).toBe(false);
    expect(c.hit(mid + 32, 5e8 + 1).allowed).toBe(true);
  });

  it("decides the exact ms where limit × window is not even a double", () => {
    // L = 999 999 006 per year: p × W ≈ 3e19, not representable, yet at the
    // midpoint of the next window the estimate is exactly L/2 = 499 999 503.
    const L = 999_999_006;
    const big = { limit: L, windowMs: YEAR, burst: L };
    const start = 54 * YEAR;
    const mid = start + YEAR + YEAR / 2;
    const a = counter(slidingWindowCounter, big);
    a.hit(start, L);
    expect(a.hit(mid, 0).remaining).toBe(499_999_503);
    expect(a.hit(mid - 1, 499_999_503)).toEqual(d(false, L, 499_999_502, YEAR / 2 + 1, 1));
    expect(a.hit(mid, 499_999_503)).toEqual(d(true, L, 0, YEAR + YEAR / 2, 0));
  });

  it("idleAt: two windows after hits in the current one, one after hits only in the previous", () => {
    const c = counter(slidingWindowCounter, spec);
    c.hit(1500);
    expect(slidingWindowCounter.idleAt(c.state!, spec)).toBe(3000);
    expect(slidingWindowCounter.idleAt({ w: 1000, p: 3, c: 0 }, spec)).toBe(2000);
  });

  it("keeps counting in the stored window if the clock steps back across a boundary", () => {
    const c = counter(slidingWindowCounter, spec);
    c.hit(2000, 10);
    expect(c.hit(1999)).toEqual(d(false, 10, 0, 2001, 1101));
  });

  const subject: Subject<unknown> = {
    algorithm: slidingWindowCounter,
    oracle: slidingCounterOracle,
    capacity: (l) => l.limit,
    bound(limit, hits) {
      // Each aligned window takes at most L, so any two adjacent ones, and any
      // sliding window of length W, at most 2L.
      const perWindow = hitsPerWindow(hits, limit.windowMs);
      for (const [k, n] of perWindow) {
        ensure(n <= limit.limit, () => `${n} hits in aligned window ${k}`);
        const pair = n + (perWindow.get(k + 1n) ?? 0);
        ensure(pair <= 2 * limit.limit, () => `${pair} hits in aligned double window ${k}, ${k + 1n}`);
      }
      slidingBound(hits, limit.windowMs, 2 * limit.limit);
    },
  };

  it("matches its exact rational estimate on random traces (small numbers)", () => {
    runProperty(subject, smallScenarios({ bucket: false }), 400);
  });

  it("matches its exact rational estimate on random traces (production-sized numbers)", () => {
    runProperty(subject, largeScenarios({ bucket: false, exactOk: () => true }), 100);
  });
});
