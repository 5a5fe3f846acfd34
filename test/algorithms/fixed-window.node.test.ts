import { describe, expect, it } from "vitest";
import { fixedWindow } from "../../src/algorithms/fixed-window.ts";
import { counter, decision as d } from "./drive.ts";
import { ensure, largeScenarios, runProperty, smallScenarios, type Subject } from "./harness.ts";
import { fixedWindowOracle, hitsPerWindow } from "./oracles.ts";

// 3 per aligned second: windows [0, 1000), [1000, 2000), …
const spec = { limit: 3, windowMs: 1000, burst: 3 };

describe("fixed window", () => {
  it("counts from 0 in a fresh window that ends at the next multiple of the window", () => {
    expect(counter(fixedWindow, spec).hit(1500)).toEqual(d(true, 3, 2, 500, 0));
  });

  it("rejects once the window is full, until the next window starts", () => {
    const c = counter(fixedWindow, spec);
    expect([c.hit(1500), c.hit(1600), c.hit(1700)].map((x) => x.remaining)).toEqual([2, 1, 0]);
    expect(c.hit(1700)).toEqual(d(false, 3, 0, 300, 300));
    expect(c.hit(1999)).toEqual(d(false, 3, 0, 1, 1));
    expect(c.hit(2000)).toEqual(d(true, 3, 2, 1000, 0));
  });

  it("lets 2 × limit through across a boundary: the known weakness", () => {
    const c = counter(fixedWindow, spec);
    expect(c.hit(1999, 3).allowed).toBe(true);
    expect(c.hit(2000, 3).allowed).toBe(true);
  });

  it("charges cost > 1 whole and rejects it when it does not fit", () => {
    const c = counter(fixedWindow, spec);
    expect(c.hit(0, 2)).toEqual(d(true, 3, 1, 1000, 0));
    expect(c.hit(10, 2)).toEqual(d(false, 3, 1, 990, 990));
    expect(c.hit(10, 1)).toEqual(d(true, 3, 0, 990, 0));
  });

  it("peeks without counting; an empty window reports reset 0", () => {
    const c = counter(fixedWindow, spec);
    expect(c.hit(1500, 0)).toEqual(d(true, 3, 3, 0, 0));
    c.hit(1500);
    const before = c.state;
    expect(c.hit(1800, 0)).toEqual(d(true, 3, 2, 200, 0));
    expect(c.state).toBe(before);
    // The next window has seen nothing.
    expect(c.hit(2100, 0)).toEqual(d(true, 3, 3, 0, 0));
  });

  it("limit 0 and cost above the limit never fit", () => {
    expect(counter(fixedWindow, { limit: 0, windowMs: 1000, burst: 0 }).hit(0, 0)).toEqual(d(false, 0, 0, 0, Infinity));
    const c = counter(fixedWindow, spec);
    c.hit(100);
    expect(c.hit(100, 4)).toEqual(d(false, 3, 2, 900, Infinity));
  });

  it("aligns windows to the epoch, not to the first request", () => {
    const c = counter(fixedWindow, { limit: 1, windowMs: 60_000, burst: 1 });
    const t = 1_700_000_010_000; // 30 s into a minute (1_699_999_980_000 is a multiple of 60 000)
    expect(c.hit(t)).toEqual(d(true, 1, 0, 30_000, 0));
    expect(c.hit(t + 29_999).retryAfterMs).toBe(1);
  });

  it("idleAt is the end of the window that holds hits", () => {
    const c = counter(fixedWindow, spec);
    c.hit(1500);
    expect(fixedWindow.idleAt(c.state!, spec)).toBe(2000);
  });

  it("keeps counting in the stored window if the clock steps back across a boundary", () => {
    const c = counter(fixedWindow, spec);
    c.hit(2000, 3);
    expect(c.hit(1999)).toEqual(d(false, 3, 0, 1001, 1001));
  });

  const subject: Subject<unknown> = {
    algorithm: fixedWindow,
    oracle: fixedWindowOracle,
    capacity: (l) => l.limit,
    bound(limit, hits) {
      for (const [k, n] of hitsPerWindow(hits, limit.windowMs)) ensure(n <= limit.limit, () => `${n} hits in aligned window ${k}`);
    },
  };

  it("matches the exact fixed-window oracle on random traces (small numbers)", () => {
    runProperty(subject, smallScenarios({ bucket: false }), 400);
  });

  it("matches the exact fixed-window oracle on random traces (production-sized numbers)", () => {
    runProperty(subject, largeScenarios({ bucket: false, exactOk: () => true }), 100);
  });
});
