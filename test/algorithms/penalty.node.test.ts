/**
 * The penalty box's pure core (src/algorithms/penalty.ts): exact cases, and
 * fast-check properties against a BigInt oracle that works each block's
 * length out anew (blockMs × escalate^breaches, capped).
 *
 * Breaks tried, each seen to fail here: escalation not multiplying (× 1);
 * no cap at maxBlockMs (Infinity); a block started 1 ms short of blockMs.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { blockedDecision, blockLeft, type PenaltySpec, type PenaltyState, penaltyStep } from "../../src/algorithms/penalty.ts";
import { SEED } from "./harness.ts";

const spec: PenaltySpec = { blockMs: 3_000, escalate: 2, maxBlockMs: 10_000 };

describe("penalty box", () => {
  it("starts a block of blockMs at a refusal by the window, and none at an allowed hit", () => {
    expect(penaltyStep(undefined, spec, 1_000, true)).toEqual({ state: { until: 4_000, lengthMs: 3_000 }, blockedMs: 3_000 });
    expect(penaltyStep(undefined, spec, 1_000, false)).toEqual({ state: undefined, blockedMs: 0 });
  });

  it("escalates from the block's start at each breach, up to maxBlockMs, whatever the window says", () => {
    let state: PenaltyState | undefined = penaltyStep(undefined, spec, 1_000, true).state;
    const steps = [2_000, 2_500, 3_000, 3_999].map((now) => {
      const step = penaltyStep(state, spec, now, false);
      state = step.state;
      return [step.state?.until, step.blockedMs];
    });
    // 3 s → 6 s → 10 s (12 s capped) → stays; all from the start at 1 s.
    expect(steps).toEqual([
      [7_000, 5_000],
      [11_000, 8_500],
      [11_000, 8_000],
      [11_000, 7_001],
    ]);
  });

  it("escalate 1 keeps a fixed block: a breach changes nothing, the state object is kept", () => {
    const fixed = { blockMs: 3_000, escalate: 1, maxBlockMs: 3_000 };
    const started = penaltyStep(undefined, fixed, 0, true).state;
    const breach = penaltyStep(started, fixed, 2_999, true);
    expect(breach.state).toBe(started);
    expect(breach.blockedMs).toBe(1);
  });

  it("ends exactly at until: the next hit is decided by the window alone", () => {
    const state = { until: 4_000, lengthMs: 3_000 };
    expect(blockLeft(state, 3_999)).toBe(1);
    expect(blockLeft(state, 4_000)).toBe(0);
    expect(penaltyStep(state, spec, 4_000, false)).toEqual({ state: undefined, blockedMs: 0 });
    // A refusal after the block starts a fresh one of blockMs, not an escalated one.
    expect(penaltyStep({ until: 4_000, lengthMs: 6_000 }, spec, 4_000, true)).toEqual({ state: { until: 7_000, lengthMs: 3_000 }, blockedMs: 3_000 });
  });

  it("never shortens a block made under a longer max (the rules changed)", () => {
    const long = { until: 20_000, lengthMs: 20_000 };
    expect(penaltyStep(long, spec, 1_000, false)).toEqual({ state: long, blockedMs: 19_000 });
  });

  it("blockedDecision refuses until the block ends, keeping a later retry of the window", () => {
    const allowed = { allowed: true, limit: 2, remaining: 1, resetAfterMs: 500, retryAfterMs: 0, effectiveWindowMs: 500 };
    expect(blockedDecision(allowed, 3_000)).toEqual({
      allowed: false,
      limit: 2,
      remaining: 0,
      resetAfterMs: 3_000,
      retryAfterMs: 3_000,
      effectiveWindowMs: 3_000,
    });
    const never = { allowed: false, limit: 2, remaining: 2, resetAfterMs: 0, retryAfterMs: Infinity, effectiveWindowMs: 5_000 };
    expect(blockedDecision(never, 3_000)).toEqual({ ...never, remaining: 0, resetAfterMs: 3_000, retryAfterMs: Infinity, effectiveWindowMs: 5_000 });
    const later = { allowed: false, limit: 2, remaining: 0, resetAfterMs: 4_000, retryAfterMs: 4_000, effectiveWindowMs: 4_000 };
    expect(blockedDecision(later, 3_000)).toEqual(later);
  });
});

// The oracle: a block is a start and the breaches counted since; its length
// is blockMs × escalate^breaches capped at maxBlockMs, worked out anew in
// BigInt at each hit rather than grown step by step.
interface Hit {
  readonly dt: number;
  readonly refused: boolean;
  readonly reset: boolean;
}

function oracle(spec: PenaltySpec, hits: readonly Hit[]): number[] {
  let start: number | undefined;
  let breaches = 0;
  let now = 0;
  const length = () => {
    const full = BigInt(spec.blockMs) * BigInt(spec.escalate) ** BigInt(breaches);
    return Number(full < BigInt(spec.maxBlockMs) ? full : BigInt(spec.maxBlockMs));
  };
  return hits.map((hit) => {
    now += hit.dt;
    if (hit.reset) start = undefined;
    if (start !== undefined && now < start + length()) {
      breaches += 1;
      return start + length() - now;
    }
    if (!hit.refused) {
      start = undefined;
      return 0;
    }
    start = now;
    breaches = 0;
    return spec.blockMs;
  });
}

const specs = fc
  .record({ blockMs: fc.integer({ min: 1, max: 5_000 }), escalate: fc.integer({ min: 1, max: 5 }), extra: fc.integer({ min: 0, max: 50_000 }) })
  .map(({ blockMs, escalate, extra }) => ({ blockMs, escalate, maxBlockMs: blockMs + extra }));
const hits = fc.array(fc.record({ dt: fc.integer({ min: 0, max: 6_000 }), refused: fc.boolean(), reset: fc.integer({ min: 0, max: 7 }).map((n) => n === 0) }), {
  maxLength: 40,
});

function run(spec: PenaltySpec, list: readonly Hit[]): { blocked: number[]; states: (PenaltyState | undefined)[] } {
  let state: PenaltyState | undefined;
  let now = 0;
  const blocked: number[] = [];
  const states: (PenaltyState | undefined)[] = [];
  for (const hit of list) {
    now += hit.dt;
    // A counter reset forgets the block with the window (the object deletes both).
    if (hit.reset) state = undefined;
    const step = penaltyStep(state, spec, now, hit.refused);
    state = step.state;
    blocked.push(step.blockedMs);
    states.push(state);
    ensure(blockLeft(state, now) === step.blockedMs, "blockLeft agrees with the step");
  }
  return { blocked, states };
}

function ensure(ok: boolean, message: string): void {
  if (!ok) throw new Error(message);
}

describe("penalty box against its oracle", () => {
  const params = { seed: SEED, numRuns: 2_000 };

  it("blocks exactly as the oracle says: escalation exact, reset lifts it", () => {
    fc.assert(
      fc.property(specs, hits, (spec, list) => {
        expect(run(spec, list).blocked).toEqual(oracle(spec, list));
      }),
      params,
    );
  });

  it("a block is never shorter than blockMs after a refusal, never longer than maxBlockMs from its start", () => {
    fc.assert(
      fc.property(specs, hits, (spec, list) => {
        const { blocked, states } = run(spec, list);
        let wasBlocked = false;
        list.forEach((hit, i) => {
          const state = states[i];
          if (state !== undefined) ensure(state.lengthMs >= spec.blockMs && state.lengthMs <= spec.maxBlockMs, `length ${state.lengthMs}`);
          ensure(blocked[i] <= spec.maxBlockMs, `blocked ${blocked[i]} > max`);
          const fresh = hit.reset || !wasBlocked;
          if (fresh && hit.refused) ensure(blocked[i] === spec.blockMs, `a refusal starts a block of ${blocked[i]}`);
          if (fresh && !hit.refused) ensure(blocked[i] === 0, "an allowed hit outside a block is not blocked");
          wasBlocked = blocked[i] > 0 && (i + 1 >= list.length || list[i + 1].dt < blocked[i]);
        });
      }),
      params,
    );
  });
});
