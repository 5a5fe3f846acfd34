import { describe, expect, it } from "vitest";
import { gcra } from "../../src/algorithms/gcra.ts";
import { exactArithmeticOk } from "../../src/algorithms/index.ts";
import { counter, decision as d } from "./drive.ts";
import { bucketBound, largeScenarios, runProperty, smallScenarios, type Subject } from "./harness.ts";
import { bucketOracle } from "./oracles.ts";

// Emission interval T = 1000/3 = 333⅓ ms, burst 2: the TAT may run 666⅔ ms ahead.
const spec = { limit: 3, windowMs: 1000, burst: 2 };

describe("gcra", () => {
  it("a fresh counter moves the TAT one interval ahead", () => {
    const c = counter(gcra, spec);
    // TAT 333⅓: one more fits (666⅔ ≤ 666⅔); the TAT is passed at 334.
    expect(c.hit(0)).toEqual(d(true, 3, 1, 334, 0));
    expect(c.state).toEqual({ t: 333, r: 1 });
  });

  it("stores the TAT exactly as whole ms plus thirds, and retries on the exact ms", () => {
    const c = counter(gcra, spec);
    c.hit(0);
    expect(c.hit(0)).toEqual(d(true, 3, 0, 667, 0));
    expect(c.state).toEqual({ t: 666, r: 2 });
    // Fits once TAT − now ≤ (2 − 1) × 333⅓, i.e. from now ≥ 333⅓.
    expect(c.hit(0)).toEqual(d(false, 3, 0, 667, 334));
    expect(c.hit(333)).toEqual(d(false, 3, 0, 334, 1));
    expect(c.hit(334)).toEqual(d(true, 3, 0, 666, 0));
    // 666⅔ + 333⅓ = 1000 exactly: no drift after three fractional steps.
    expect(c.state).toEqual({ t: 1000, r: 0 });
  });

  it("a TAT in the past counts as now: an idle counter is full again", () => {
    const c = counter(gcra, spec);
    c.hit(0, 2);
    expect(c.hit(5_000, 0)).toEqual(d(true, 3, 2, 0, 0));
    expect(c.hit(5_000, 2)).toEqual(d(true, 3, 0, 667, 0));
  });

  it("cost > 1 advances the TAT by cost intervals", () => {
    const c = counter(gcra, spec);
    expect(c.hit(0, 2)).toEqual(d(true, 3, 0, 667, 0));
    // Needs the TAT to fall to now: 666⅔ → 667.
    expect(c.hit(0, 2)).toEqual(d(false, 3, 0, 667, 667));
    expect(c.hit(666, 2).allowed).toBe(false);
    expect(c.hit(667, 2).allowed).toBe(true);
  });

  it("peeks with cost 0 and leaves the TAT alone", () => {
    const c = counter(gcra, spec);
    c.hit(0);
    const before = c.state;
    expect(c.hit(100, 0)).toEqual(d(true, 3, 1, 234, 0));
    expect(c.state).toBe(before);
  });

  it("limit 0 and cost above the burst never fit", () => {
    expect(counter(gcra, { limit: 0, windowMs: 1000, burst: 2 }).hit(0)).toEqual(d(false, 0, 0, 0, Infinity));
    const c = counter(gcra, spec);
    c.hit(0);
    expect(c.hit(0, 3)).toEqual(d(false, 3, 1, 334, Infinity));
  });

  it("idleAt is the TAT rounded up to a whole ms", () => {
    const c = counter(gcra, spec);
    c.hit(10);
    expect(gcra.idleAt(c.state!, spec)).toBe(344);
    c.hit(344);
    // TAT 344 + 333⅓ = 677⅓.
    expect(gcra.idleAt(c.state!, spec)).toBe(678);
  });

  const subject: Subject<unknown> = { algorithm: gcra, oracle: bucketOracle, capacity: (l) => l.burst, bound: bucketBound };

  it("matches the exact bucket oracle on random traces (small numbers)", () => {
    runProperty(subject, smallScenarios({ bucket: true }), 400);
  });

  it("matches the exact bucket oracle on random traces (production-sized numbers)", () => {
    runProperty(subject, largeScenarios({ bucket: true, exactOk: (l) => exactArithmeticOk(l, "gcra") }), 100);
  });
});
