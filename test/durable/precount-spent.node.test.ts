/**
 * The object's side of "Hits charged in their window" (docs/placement.md):
 * a sync's hits its lease covered are charged at the times the holder
 * reports (`spentAt`), each no later than the object's now, and only when
 * those parts are whole hits at integer times, in order, summing to the
 * call's cost; otherwise all at now (src/durable/counters/leases/precount-sync.ts).
 * The counters here record every charge with its time. Also the fair share
 * every lender uses (`fairShare`), at and past its edges.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LeaseBook } from "../../src/durable/counters/leases/leases.ts";
import { absorb, type CounterAccess, fairShare } from "../../src/durable/counters/leases/precount-sync.ts";
import type { AbsorbCall, LimitCall, SpentAt } from "../../src/stored/wire-calls.ts";

const LIMITS: LimitCall[] = [{ id: "m", algorithm: "fixed_window", limit: 1_000, windowMs: 60_000, burst: 1_000 }];
const NOW = 50_000;

/** Counters with room for `room` hits in all, recording each charge and the time it was charged at (undefined: now). */
function recording(room = 1_000) {
  const charges: [number, number | undefined][] = [];
  let used = 0;
  const access: CounterAccess = {
    fits: (_call, cost) => used + cost <= room,
    take: (_call, cost, at) => {
      used += cost;
      charges.push([cost, at]);
    },
    peek: () => [{ allowed: true, limit: room, remaining: room - used, resetAfterMs: 1, retryAfterMs: 0, effectiveWindowMs: 60_000 }],
  };
  return { access, charges };
}

const sync = (cost: number, want: number, spentAt?: unknown): AbsorbCall =>
  ({ key: "k", limits: LIMITS, cost, kind: "absorb", lease: { holder: "h", want, ttlMs: 5_000 }, ...(spentAt === undefined ? {} : { spentAt }) }) as AbsorbCall;

/** A holder leased `lease` hits at NOW - 1000, then reporting `call`: the charges that sync made. */
function charged(lease: number, call: AbsorbCall, room = 1_000) {
  const leases = new LeaseBook();
  const counters = recording(room);
  expect(absorb(sync(0, lease), leases, counters.access, NOW - 1_000).reserved).toBe(lease);
  counters.charges.length = 0;
  const verdict = absorb(call, leases, counters.access, NOW);
  return { charges: counters.charges, accepted: verdict.accepted };
}

describe("the covered hits of a sync, charged at their times", () => {
  it("each part at its own time", () => {
    const parts: SpentAt[] = [
      { at: 49_100, cost: 2 },
      { at: 49_500, cost: 3 },
    ];
    expect(charged(10, sync(5, 0, parts))).toEqual({
      charges: [
        [2, 49_100],
        [3, 49_500],
      ],
      accepted: 5,
    });
  });

  it("a part later than the object's now is charged at now, never later", () => {
    expect(
      charged(
        10,
        sync(3, 0, [
          { at: 49_000, cost: 1 },
          { at: NOW + 700, cost: 2 },
        ]),
      ).charges,
    ).toEqual([
      [1, 49_000],
      [2, NOW],
    ]);
  });

  it("parts at one time, and parts equal in time to the one before, are taken as they are", () => {
    expect(
      charged(
        10,
        sync(3, 0, [
          { at: 49_000, cost: 1 },
          { at: 49_000, cost: 2 },
        ]),
      ).charges,
    ).toEqual([
      [1, 49_000],
      [2, 49_000],
    ]);
  });

  it("only the hits the lease covered are charged by part; the rest after them, at now, as they fit", () => {
    // A lease of 3, a sync of 5: the first 3 hits by their parts (the second part cut to 1), 2 more at now.
    expect(
      charged(
        3,
        sync(5, 0, [
          { at: 49_100, cost: 2 },
          { at: 49_200, cost: 2 },
          { at: 49_300, cost: 1 },
        ]),
      ),
    ).toEqual({
      charges: [
        [2, 49_100],
        [1, 49_200],
        [2, undefined],
      ],
      accepted: 5,
    });
  });

  it("a part that no longer fits is charged as far as it fits", () => {
    const leases = new LeaseBook();
    const counters = recording(10);
    absorb(sync(0, 4), leases, counters.access, NOW - 1_000);
    // The counter filled meanwhile (a reset, other hits): 8 of its 10 taken.
    counters.access.take(sync(0, 0), 8);
    counters.charges.length = 0;
    const verdict = absorb(
      sync(4, 0, [
        { at: 49_100, cost: 1 },
        { at: 49_200, cost: 3 },
      ]),
      leases,
      counters.access,
      NOW,
    );
    expect(counters.charges).toEqual([
      [1, 49_100],
      [1, 49_200],
    ]);
    expect(verdict.accepted).toBe(2);
  });

  it.each([
    ["no parts", undefined],
    ["not a list", { at: 49_000, cost: 3 }],
    ["an empty list", []],
    ["a time not an integer", [{ at: 49_000.5, cost: 3 }]],
    ["no time", [{ cost: 3 }]],
    ["a part that is not an object", [null, { at: 49_000, cost: 3 }]],
    [
      "a cost not an integer",
      [
        { at: 49_000, cost: 1.5 },
        { at: 49_001, cost: 1.5 },
      ],
    ],
    [
      "a part of cost 0",
      [
        { at: 49_000, cost: 0 },
        { at: 49_001, cost: 3 },
      ],
    ],
    [
      "a negative cost",
      [
        { at: 49_000, cost: -1 },
        { at: 49_001, cost: 4 },
      ],
    ],
    [
      "parts out of order",
      [
        { at: 49_001, cost: 1 },
        { at: 49_000, cost: 2 },
      ],
    ],
    ["parts summing to less than the cost", [{ at: 49_000, cost: 2 }]],
    ["parts summing to more than the cost", [{ at: 49_000, cost: 4 }]],
  ])("%s: all of them at now", (_name, spentAt) => {
    expect(charged(10, sync(3, 0, spentAt))).toEqual({ charges: [[3, undefined]], accepted: 3 });
  });

  it("random parts: valid ones are charged as sent (capped at now), anything else all at now", () => {
    const part = fc.record({ at: fc.integer({ min: 40_000, max: 52_000 }), cost: fc.integer({ min: -1, max: 4 }) });
    fc.assert(
      fc.property(fc.array(part, { maxLength: 6 }), fc.integer({ min: 1, max: 12 }), (parts, cost) => {
        const valid =
          parts.length > 0 && parts.every((p, i) => p.cost > 0 && (i === 0 || p.at >= parts[i - 1].at)) && parts.reduce((sum, p) => sum + p.cost, 0) === cost;
        const expected = valid ? parts.map((p) => [p.cost, Math.min(p.at, NOW)]) : [[cost, undefined]];
        expect(charged(20, sync(cost, 0, parts)).charges).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });
});

describe("fairShare", () => {
  it("a share of what is free among the holders and this one, rounded up, never more than asked or free", () => {
    expect(fairShare(10, 9, 2, false)).toBe(3);
    expect(fairShare(10, 9, 2, true)).toBe(5);
    expect(fairShare(2, 9, 0, false)).toBe(2);
    expect(fairShare(10, 1, 5, false)).toBe(1);
  });

  it("nothing asked or nothing free: nothing, never a negative share", () => {
    expect(fairShare(0, 9, 0, false)).toBe(0);
    expect(fairShare(-3, 9, 0, false)).toBe(0);
    expect(fairShare(5, 0, 0, false)).toBe(0);
    expect(fairShare(5, -4, 0, false)).toBe(0);
  });
});
