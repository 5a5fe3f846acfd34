/**
 * Hits charged in their window (docs/placement.md, "Hits charged in their
 * window"): the times a lease holder reports with a sync's hits
 * (src/durable/counters/leases/lease-holder.ts, `spend`, `startSync`,
 * `syncCall`'s `spentAt`, `failSync`), held against the list of every hit
 * allowed. Each hit is charged at its own time or later, never in another
 * window of any limit, never lost nor counted twice across failed syncs; the
 * holder keeps SPENT_PARTS parts before it merges a window's hits. Also the
 * end of a lease a region's copy grants (`takeLease` and `leaseMs`), and the
 * relay's own sizing inputs (relay-lease.ts) at their exact values.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as holder from "../../src/durable/counters/leases/lease-holder.ts";
import { SPENT_PARTS } from "../../src/durable/counters/leases/lease-holder.ts";
import * as relay from "../../src/durable/counters/leases/relay-lease.ts";
import type { CounterCall, LimitCall, SpentAt } from "../../src/stored/wire-calls.ts";

const limit = (id: string, windowMs: number, value = 1_000): LimitCall => ({ id, algorithm: "fixed_window", limit: value, windowMs, burst: value });
const callOf = (...limits: LimitCall[]): CounterCall => ({ key: "k", cost: 1, limits });

const POLICY: holder.LeasePolicy<relay.Held> = { ttlMs: () => 10_000, idle: () => false, want: () => 5 };

/** Spend each hit in order from a lease large enough, and sync: what the sync reports. */
function report(held: relay.Held, hits: readonly { at: number; cost: number }[]) {
  for (const { at, cost } of hits) holder.spend(held, cost, at);
  const sent = holder.startSync(held);
  return { sent, call: holder.syncCall(held, sent, "h", hits.at(-1)?.at ?? 0, POLICY) };
}

/** Every hit lands in the part that charges it: parts are in time order, a hit in the first part at or after it. */
function chargedIn(parts: readonly SpentAt[], hits: readonly { at: number; cost: number }[]): number[] {
  const left = parts.map((part) => part.cost);
  return hits.map(({ at, cost }) => {
    const i = left.findIndex((rest, j) => rest >= cost && parts[j].at >= at);
    expect(i).toBeGreaterThanOrEqual(0);
    left[i] -= cost;
    return i;
  });
}

const windowOf = (windowMs: number, at: number) => Math.floor(at / windowMs);

describe("the hits a sync reports, with their times", () => {
  it("each at its own time while fewer than SPENT_PARTS times; hits at one time are one part", () => {
    const held = relay.newHeld(callOf(limit("m", 60_000)), 0);
    const { sent, call } = report(held, [
      { at: 10, cost: 1 },
      { at: 10, cost: 2 },
      { at: 25, cost: 3 },
      { at: 40, cost: 1 },
    ]);
    expect(sent).toBe(7);
    expect(call.cost).toBe(7);
    expect(call.spentAt).toEqual([
      { at: 10, cost: 3 },
      { at: 25, cost: 3 },
      { at: 40, cost: 1 },
    ]);
  });

  it("past SPENT_PARTS parts, a window's hits merge into the last part at the later time; a window edge starts a new part", () => {
    expect(SPENT_PARTS).toBe(16);
    const held = relay.newHeld(callOf(limit("s", 1_000)), 0);
    const hits = Array.from({ length: 20 }, (_, i) => ({ at: 100 + i, cost: 1 }));
    hits.push({ at: 1_000, cost: 2 }, { at: 1_001, cost: 1 });
    const { call } = report(held, hits);
    const parts = call.spentAt ?? [];
    expect(parts.length).toBe(SPENT_PARTS + 1);
    expect(parts.slice(0, 15)).toEqual(hits.slice(0, 15));
    expect(parts[15]).toEqual({ at: 119, cost: 5 });
    expect(parts[16]).toEqual({ at: 1_001, cost: 3 });
  });

  it("every limit's window counts; a limit without a window (windowMs 0) does not split parts", () => {
    const hits = Array.from({ length: 18 }, (_, i) => ({ at: 900 + 10 * i, cost: 1 })); // 900 … 1070: crosses 1000
    const minuteAndNone = report(relay.newHeld(callOf(limit("none", 0), limit("m", 60_000)), 0), hits).call.spentAt ?? [];
    expect(minuteAndNone.length).toBe(SPENT_PARTS);
    expect(minuteAndNone[15]).toEqual({ at: 1_070, cost: 3 });
    const withSecond = report(relay.newHeld(callOf(limit("m", 60_000), limit("s", 1_000)), 0), hits).call.spentAt ?? [];
    // 900 … 1050 are 16 parts; 1060 merges into 1050 (same second and minute), 1070 too.
    expect(withSecond.length).toBe(SPENT_PARTS);
    expect(withSecond[15]).toEqual({ at: 1_070, cost: 3 });
    const split = report(relay.newHeld(callOf(limit("m", 60_000), limit("s", 1_000)), 0), [
      ...Array.from({ length: 16 }, (_, i) => ({ at: 980 + i, cost: 1 })),
      { at: 999, cost: 1 },
      { at: 1_000, cost: 1 },
    ]).call.spentAt;
    expect(split?.slice(14)).toEqual([
      { at: 994, cost: 1 },
      { at: 999, cost: 2 },
      { at: 1_000, cost: 1 },
    ]);
  });

  it("random hits: the parts sum to the hits, each charged at its time or later and in its window of every limit", () => {
    const hitsArb = fc.array(fc.record({ step: fc.nat(700), cost: fc.integer({ min: 1, max: 5 }) }), { minLength: 1, maxLength: 60 }).map((steps) => {
      let at = 0;
      return steps.map(({ step, cost }) => {
        at += step;
        return { at, cost };
      });
    });
    fc.assert(
      fc.property(hitsArb, fc.constantFrom(1_000, 1_500, 60_000), (hits, windowMs) => {
        const held = relay.newHeld(callOf(limit("w", windowMs), limit("none", 0)), 0);
        const { sent, call } = report(held, hits);
        const parts = call.spentAt ?? [];
        const total = hits.reduce((sum, hit) => sum + hit.cost, 0);
        expect(sent).toBe(total);
        expect(parts.reduce((sum, part) => sum + part.cost, 0)).toBe(total);
        const distinctTimes = new Set(hits.map((hit) => hit.at)).size;
        const windows = new Set(hits.map((hit) => windowOf(windowMs, hit.at))).size;
        expect(parts.length).toBeLessThanOrEqual(Math.min(distinctTimes, SPENT_PARTS + windows - 1));
        if (distinctTimes <= SPENT_PARTS) expect(parts.length).toBe(distinctTimes);
        const into = chargedIn(parts, hits);
        expect(into.map((part) => windowOf(windowMs, parts[part].at))).toEqual(hits.map((hit) => windowOf(windowMs, hit.at)));
      }),
      { numRuns: 200 },
    );
  });
});

describe("spentAt across syncs", () => {
  it("no hits: no spentAt; times only when the parts are exactly the hits reported", () => {
    const held = relay.newHeld(callOf(limit("m", 60_000)), 0);
    expect(holder.syncCall(held, 0, "h", 5, POLICY).spentAt).toBeUndefined();
    holder.spend(held, 2, 7);
    holder.startSync(held);
    expect(holder.syncCall(held, 2, "h", 8, POLICY).spentAt).toEqual([{ at: 7, cost: 2 }]);
    // A caller reporting other than what was spent: the times would not match the hits, so none are sent.
    expect(holder.syncCall(held, 3, "h", 8, POLICY).spentAt).toBeUndefined();
    expect(holder.syncCall(held, 1, "h", 8, POLICY).spentAt).toBeUndefined();
  });

  it("the call's spentAt is its own copy: spending after it does not change what was sent", () => {
    const held = relay.newHeld(callOf(limit("m", 60_000)), 0);
    holder.spend(held, 1, 3);
    holder.startSync(held);
    const call = holder.syncCall(held, 1, "h", 3, POLICY);
    const part = held.sending?.[0];
    if (part !== undefined) part.cost = 99;
    expect(call.spentAt).toEqual([{ at: 3, cost: 1 }]);
  });

  it("a sync that failed puts its parts back before those spent since; the next sync reports them all", () => {
    const held = relay.newHeld(callOf(limit("m", 60_000)), 0);
    holder.spend(held, 2, 10);
    const sent = holder.startSync(held);
    expect(held.spent).toEqual([]);
    holder.spend(held, 1, 20);
    holder.failSync(held, sent);
    expect([held.pending, held.inflight, held.syncing]).toEqual([3, 0, false]);
    const again = holder.startSync(held);
    expect(again).toBe(3);
    expect(holder.syncCall(held, again, "h", 21, POLICY).spentAt).toEqual([
      { at: 10, cost: 2 },
      { at: 20, cost: 1 },
    ]);
    // Answered: nothing is sent again.
    holder.endSync(held, again, { allowed: true, decisions: [] });
    expect(held.sending).toEqual([]);
    holder.spend(held, 4, 30);
    const third = holder.startSync(held);
    expect(holder.syncCall(held, third, "h", 31, POLICY).spentAt).toEqual([{ at: 30, cost: 4 }]);
  });

  it("a failed sync with nothing spent since, and a record that never spent, fail cleanly", () => {
    const held = relay.newHeld(callOf(limit("m", 60_000)), 0);
    holder.failSync(held, 0);
    expect([held.spent, held.sending, held.pending]).toEqual([[], [], 0]);
    holder.spend(held, 1, 5);
    expect(held.spent).toEqual([{ at: 5, cost: 1 }]);
    const sent = holder.startSync(held);
    holder.failSync(held, sent);
    expect(held.spent).toEqual([{ at: 5, cost: 1 }]);
  });

  it("random spends, failures and answers: every hit is reported exactly once, at its own time", () => {
    const steps = fc.array(fc.oneof(fc.integer({ min: 1, max: 4 }), fc.constant("fail" as const), fc.constant("ok" as const)), { maxLength: 40 });
    fc.assert(
      fc.property(steps, (plan) => {
        const held = relay.newHeld(callOf(limit("m", 60_000)), 0);
        const reported: SpentAt[] = [];
        let spentCost = 0;
        let now = 0;
        let inFlight: { sent: number; parts: readonly SpentAt[] } | undefined;
        const flush = (ok: boolean) => {
          if (inFlight === undefined) {
            const sent = holder.startSync(held);
            inFlight = { sent, parts: holder.syncCall(held, sent, "h", now, POLICY).spentAt ?? [] };
            expect(inFlight.parts.reduce((sum, part) => sum + part.cost, 0)).toBe(sent);
          }
          if (ok) {
            reported.push(...inFlight.parts);
            holder.endSync(held, inFlight.sent, { allowed: true, decisions: [] });
          } else holder.failSync(held, inFlight.sent);
          inFlight = undefined;
        };
        for (const step of plan) {
          now += 1;
          if (step === "fail") flush(false);
          else if (step === "ok") flush(true);
          else {
            holder.spend(held, step, now);
            spentCost += step;
          }
        }
        flush(true);
        expect(reported.reduce((sum, part) => sum + part.cost, 0)).toBe(spentCost);
        expect(held.pending + held.inflight).toBe(0);
      }),
      { numRuns: 300 },
    );
  });
});

describe("the end of a lease a region's copy grants", () => {
  const verdict = (leaseMs: unknown) => ({ allowed: true, decisions: [], reserved: 8, leaseMs }) as never;

  it.each([
    [undefined, 1_000 + 10_000],
    [3_000, 1_000 + 3_000],
    [0, 1_000],
    [-1, 1_000 + 10_000],
    [20_000, 1_000 + 10_000],
    ["3000", 1_000 + 10_000],
  ])("leaseMs %s: spendable until %s", (leaseMs, until) => {
    const held = relay.newHeld(callOf(limit("m", 60_000)), 0);
    holder.takeLease(held, verdict(leaseMs), 1_000, 1_040, POLICY);
    expect([held.budget, held.until, held.roundTripMs]).toEqual([8, until, 40]);
  });
});

describe("the relay's lease beside what it lent isolates", () => {
  it("quota lent on counts against what the relay may spend itself", () => {
    const held = Object.assign(relay.newHeld(callOf(limit("m", 60_000, 100)), 0), { budget: 10, until: 5_000, subleased: 4, pending: 3 });
    expect(relay.canSpend(held, 3, 100)).toBe(true);
    expect(relay.canSpend(held, 4, 100)).toBe(false);
  });

  it("asks for what isolates hold and asked for in vain, on top of its own rate", () => {
    // 10 hits over the 1 s period, no round trip yet: 2 × 1000 × 10/1000 = 20; the cap is 1000/4 = 250.
    const base = { hitsSinceSync: 10, syncSentAt: 0, roundTripMs: 0 };
    const want = (fields: Partial<relay.Held>) => {
      const held = Object.assign(relay.newHeld(callOf(limit("m", 60_000, 1_000)), 0), base, fields);
      return relay.syncCall(held, 0, "h", 1_000).lease?.want;
    };
    expect(want({})).toBe(20);
    expect(want({ subleased: 7 })).toBe(27);
    expect(want({ subleased: 7, subAsk: 5 })).toBe(32);
    // Waiting hits: what is left of the lease beside the in-flight and pending hits, plus what they cost.
    expect(want({ wanting: 30, budget: 12, inflight: 2, pending: 1 })).toBe(39);
    expect(want({ wanting: 1, budget: 12, inflight: 2, pending: 1 })).toBe(20);
  });

  it("the lease asked for is what `dry` is judged by, and asking resets what isolates asked for", () => {
    const held = Object.assign(relay.newHeld(callOf(limit("m", 60_000, 1_000)), 0), { subAsk: 5 });
    const call = relay.syncCall(held, 0, "h", 1_000);
    expect([held.asked, held.subAsk]).toEqual([call.lease?.want, 0]);
    relay.takeLease(held, { allowed: true, decisions: [], reserved: (call.lease?.want ?? 0) - 1 }, 1_000, 1_010);
    expect(held.dry).toBe(true);
    relay.takeLease(held, { allowed: true, decisions: [], reserved: call.lease?.want }, 1_000, 1_010);
    expect(held.dry).toBe(false);
    held.asked = 0;
    relay.takeLease(held, { allowed: true, decisions: [] }, 1_000, 1_010);
    expect(held.dry).toBe(false);
  });

  it("a key with quota lent on is never idle; one without is idle after RELAY_IDLE_MS", () => {
    const held = relay.newHeld(callOf(limit("m", 60_000)), 0);
    expect(relay.RELAY_POLICY.idle(held, relay.RELAY_IDLE_MS - 1)).toBe(false);
    expect(relay.RELAY_POLICY.idle(held, relay.RELAY_IDLE_MS)).toBe(true);
    held.subleased = 1;
    expect(relay.RELAY_POLICY.idle(held, relay.RELAY_IDLE_MS)).toBe(false);
  });
});
