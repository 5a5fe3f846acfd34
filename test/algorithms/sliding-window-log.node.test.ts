import { describe, expect, it } from "vitest";
import { slidingWindowLog } from "../../src/algorithms/sliding-window-log.ts";
import { counter, decision as d } from "./drive.ts";
import { largeScenarios, runProperty, slidingBound, smallScenarios, type Subject } from "./harness.ts";
import { slidingLogOracle } from "./oracles.ts";

// 3 in any 1000 ms: a hit at t counts until t + 1000 (exclusive).
const spec = { limit: 3, windowMs: 1000, burst: 3 };

describe("sliding window log", () => {
  it("a fresh counter logs the hit, which leaves the window 1000 ms later", () => {
    const c = counter(slidingWindowLog, spec);
    expect(c.hit(50)).toEqual(d(true, 3, 2, 1000, 0));
    expect(c.state).toEqual([[50, 1]]);
  });

  it("rejects until the oldest hit leaves the window, exactly", () => {
    const c = counter(slidingWindowLog, spec);
    expect([c.hit(0), c.hit(100), c.hit(200)]).toEqual([d(true, 3, 2, 1000, 0), d(true, 3, 1, 1000, 0), d(true, 3, 0, 1000, 0)]);
    expect(c.hit(500)).toEqual(d(false, 3, 0, 700, 500));
    // The hit at 0 is in (999 − 1000, 999] but not in (0, 1000].
    expect(c.hit(999)).toEqual(d(false, 3, 0, 201, 1));
    expect(c.hit(1000)).toEqual(d(true, 3, 0, 1000, 0));
    expect(c.state).toEqual([
      [100, 1],
      [200, 1],
      [1000, 1],
    ]);
  });

  it("waits for as many old hits to leave as cost > 1 needs", () => {
    const c = counter(slidingWindowLog, spec);
    c.hit(0);
    c.hit(100);
    c.hit(200);
    // Needs two free: the hits at 0 and 100 must both leave, at 1100.
    expect(c.hit(300, 2)).toEqual(d(false, 3, 0, 900, 800));
    expect(c.hit(1099, 2).allowed).toBe(false);
    expect(c.hit(1100, 2)).toEqual(d(true, 3, 0, 1000, 0));
  });

  it("merges hits of the same ms into one [ts, count] entry", () => {
    const c = counter(slidingWindowLog, spec);
    c.hit(7);
    c.hit(7, 2);
    expect(c.state).toEqual([[7, 3]]);
    expect(c.hit(8)).toEqual(d(false, 3, 0, 999, 999));
  });

  it("peeks without logging", () => {
    const c = counter(slidingWindowLog, spec);
    expect(c.hit(0, 0)).toEqual(d(true, 3, 3, 0, 0));
    c.hit(0);
    const before = c.state;
    expect(c.hit(400, 0)).toEqual(d(true, 3, 2, 600, 0));
    expect(c.state).toBe(before);
  });

  it("limit 0 and cost above the limit never fit", () => {
    expect(counter(slidingWindowLog, { limit: 0, windowMs: 1000, burst: 0 }).hit(0)).toEqual(d(false, 0, 0, 0, Infinity));
    const c = counter(slidingWindowLog, spec);
    c.hit(0);
    expect(c.hit(10, 4)).toEqual(d(false, 3, 2, 990, Infinity));
  });

  it("drops expired entries when it writes, and idleAt is when the newest expires", () => {
    const c = counter(slidingWindowLog, spec);
    c.hit(0);
    c.hit(500);
    expect(slidingWindowLog.idleAt(c.state!, spec)).toBe(1500);
    c.hit(1200);
    expect(c.state).toEqual([
      [500, 1],
      [1200, 1],
    ]);
    expect(slidingWindowLog.idleAt([], spec)).toBe(0);
  });

  it("files a hit under the newest timestamp if the clock steps back, keeping the log sorted", () => {
    const c = counter(slidingWindowLog, spec);
    c.hit(1000);
    expect(c.hit(900)).toEqual(d(true, 3, 1, 1100, 0));
    expect(c.state).toEqual([[1000, 2]]);
  });

  const subject: Subject<unknown> = {
    algorithm: slidingWindowLog,
    oracle: slidingLogOracle,
    capacity: (l) => l.limit,
    bound: (limit, hits) => slidingBound(hits, limit.windowMs, limit.limit),
  };

  it("matches the exact sliding-log oracle on random traces (small numbers)", () => {
    runProperty(subject, smallScenarios({ bucket: false }), 400);
  });

  it("matches the exact sliding-log oracle on random traces (production-sized numbers)", () => {
    runProperty(subject, largeScenarios({ bucket: false, exactOk: () => true }), 100);
  });
});
