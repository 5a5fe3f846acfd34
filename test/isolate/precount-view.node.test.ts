/**
 * One pre-counted counter as an isolate sees it (src/isolate/precount-view.ts),
 * function by function at chosen instants: when a hit may be spent locally
 * (the budget, the lease's end, the view's freshness: each bound exact to
 * the millisecond), what a sync asks for and gives back, how a view ages,
 * and when a counter is hot. The pre-counting tests through real objects
 * (test/isolate/precount.slow.test.ts) run these together; this file pins each
 * boundary (mutation testing, docs/testing.md).
 */
import { describe, expect, it } from "vitest";
import type { Decision } from "../../src/algorithms/types.ts";
import { leaseVerdict } from "../../src/durable/counters/leases/lease-verdict.ts";
import type { CounterCall, LimitCall } from "../../src/stored/wire-calls.ts";
import {
  canSpend,
  type Entry,
  freshFor,
  isHot,
  LEASE_GROWTH,
  LEASE_MIN,
  leaseTtl,
  leaseWant,
  newEntry,
  noteHit,
  precountId,
  refresh,
  setLease,
  setView,
  syncCall,
} from "../../src/isolate/precount-view.ts";

const limit = (id: string): LimitCall => ({ id, algorithm: "fixed_window", limit: 100, windowMs: 60_000, burst: 100 });
const call: CounterCall = { key: "k", cost: 3, limits: [limit("a"), limit("b")] };
const d = (remaining: number, resetAfterMs = 5_000, effectiveWindowMs = 5_000): Decision => ({
  allowed: true,
  limit: 100,
  remaining,
  resetAfterMs,
  retryAfterMs: 0,
  effectiveWindowMs,
});
const SYNC = 100;
/** An entry as the first strong decision at `at` leaves it, with `fields` changed. */
const entryAt = (at: number, fields: Partial<Entry> = {}): Entry => Object.assign(newEntry("obj", call, SYNC, [d(50)], at), fields);

describe("pre-counting view", () => {
  it("a new entry views the answer as of now, holds no lease, and counts the first hits toward its rate", () => {
    const decisions = [d(50), d(70)];
    expect(newEntry("obj", call, SYNC, decisions, 1_000)).toEqual({
      objectName: "obj",
      call: { key: "k", limits: call.limits, cost: 1 },
      syncMs: SYNC,
      auto: false,
      snapshot: decisions,
      syncedAt: 1_000,
      budget: 0,
      until: 0,
      hitsSinceSync: 3,
      syncSentAt: 1_000,
      roundTripMs: 0,
      pending: 0,
      inflight: 0,
      syncing: false,
      chain: undefined,
      moved: 0,
      lastMoved: false,
      answered: 0,
      lastHitAt: 0,
      asking: 0,
      gapMs: Number.POSITIVE_INFINITY,
      short: 0,
    });
  });

  it("names a counter by its key and limits, not its cost", () => {
    expect(precountId(call)).toBe("k\u0001a\u0002b");
    expect(precountId({ ...call, cost: 9 })).toBe(precountId(call));
  });

  it("a view is fresh for 2 × sync_ms + 1 s, and a lease lasts as long", () => {
    expect([freshFor(100), freshFor(0), freshFor(4_500)]).toEqual([1_200, 1_000, 10_000]);
    expect([leaseTtl(100), leaseTtl(250)]).toEqual([1_200, 1_500]);
  });

  it("takes a lease from a sync's answer: budget, end counted from the send, round trip as a moving average", () => {
    const entry = entryAt(0);
    setLease(entry, { allowed: true, decisions: [d(50)] }, 1_000, 1_080);
    // No lease in the answer: nothing changes.
    expect([entry.budget, entry.until, entry.roundTripMs]).toEqual([0, 0, 0]);
    setLease(entry, { allowed: true, decisions: [d(50)], reserved: 12 }, 1_000, 1_080);
    expect([entry.budget, entry.until, entry.roundTripMs]).toEqual([12, 1_000 + 1_200, 80]);
    setLease(entry, { allowed: true, decisions: [d(50)], reserved: 0 }, 2_000, 2_040);
    expect([entry.budget, entry.until, entry.roundTripMs]).toEqual([0, 2_000 + 1_200, (3 * 80 + 40) / 4]);
    // A clock that went back counts as no time, not a negative round trip.
    const fresh = entryAt(0);
    setLease(fresh, { allowed: true, decisions: [d(50)], reserved: 1 }, 500, 400);
    expect(fresh.roundTripMs).toBe(0);
  });

  it("spends locally only within the budget, before the lease's end and while the view is fresh (each bound exact)", () => {
    const entry = entryAt(0, { budget: 10, pending: 4, inflight: 3, until: 1_100 });
    expect(canSpend(entry, 3, SYNC, 500)).toBe(true);
    expect(canSpend(entry, 4, SYNC, 500)).toBe(false);
    expect(canSpend(entry, 1, SYNC, 1_099)).toBe(true);
    expect(canSpend(entry, 1, SYNC, 1_100)).toBe(false);
    entry.until = 5_000;
    expect(canSpend(entry, 1, SYNC, 1_199)).toBe(true);
    expect(canSpend(entry, 1, SYNC, 1_200)).toBe(false);
    // The freshness bound follows the sync_ms asked about, counted from the last view.
    setView(entry, entry.snapshot, 1_000);
    expect(canSpend(entry, 1, 200, 2_399)).toBe(true);
    expect(canSpend(entry, 1, 200, 2_400)).toBe(false);
  });

  it("asks for two sync periods and two round trips at the recent rate, at least LEASE_MIN", () => {
    expect(leaseWant(1, 100, 200)).toBe(600);
    expect(leaseWant(0, 100, 0)).toBe(LEASE_MIN);
    expect(leaseWant(0.0251, 100, 0)).toBe(6);
    expect(leaseWant(0.02, 100, 0)).toBe(LEASE_MIN);
    expect(leaseWant(0.025, 100, 0)).toBe(5);
  });

  it("a sync reports the hits, asks for the rate since the last sync, and starts a new period", () => {
    const entry = entryAt(0, { hitsSinceSync: 40, syncSentAt: 1_000, roundTripMs: 50, lastHitAt: 1_190, budget: 8, pending: 2 });
    // 40 hits in 200 ms: 0.2 a ms, × 2 × (100 + 50) = 60.
    expect(syncCall(entry, 5, "holder", 1_200)).toEqual({
      key: "k",
      limits: call.limits,
      cost: 5,
      kind: "absorb",
      lease: { holder: "holder", want: 60, release: 0, ttlMs: 1_200 },
      // Its id (docs/reliability.md, "Exactly once"): fresh per sync.
      op: expect.any(String),
    });
    expect([entry.hitsSinceSync, entry.syncSentAt, entry.budget]).toEqual([0, 1_200, 8]);
    // Hits in the same millisecond: the rate is taken over 1 ms, not divided by 0.
    const burst = entryAt(0, { hitsSinceSync: 3, syncSentAt: 2_000, lastHitAt: 2_000 });
    expect(syncCall(burst, 0, "h", 2_000).lease?.want).toBe(Math.ceil(2 * SYNC * 3));
  });

  it("a lease that ran short grows LEASE_GROWTH-fold, once", () => {
    const entry = entryAt(0, { hitsSinceSync: 1, syncSentAt: 0, lastHitAt: 999, budget: 30, short: 2 });
    expect(syncCall(entry, 0, "h", 1_000).lease?.want).toBe(LEASE_GROWTH * 30);
    expect(entry.short).toBe(0);
    entry.hitsSinceSync = 1;
    expect(syncCall(entry, 0, "h", 2_000).lease?.want).toBe(LEASE_MIN);
  });

  it("a counter idle a whole sync period gives back what its lease still covers beyond its pending and in-flight hits", () => {
    const idle = entryAt(0, { hitsSinceSync: 0, lastHitAt: 900, budget: 10, pending: 2, inflight: 3 });
    expect(syncCall(idle, 2, "h", 1_000).lease).toEqual({ holder: "h", want: 0, release: 5, ttlMs: 1_200 });
    expect(idle.budget).toBe(5);
    // One millisecond short of a sync period: still hot enough to keep its lease.
    const recent = entryAt(0, { hitsSinceSync: 0, lastHitAt: 901, budget: 10 });
    expect(syncCall(recent, 0, "h", 1_000).lease).toMatchObject({ want: LEASE_MIN, release: 0 });
    // Hits since the last sync, or hits waiting for the object: not idle.
    const hit = entryAt(0, { hitsSinceSync: 1, lastHitAt: 0, budget: 10 });
    expect(syncCall(hit, 0, "h", 1_000).lease?.release).toBe(0);
    const asking = entryAt(0, { hitsSinceSync: 0, lastHitAt: 0, budget: 10, asking: 1 });
    expect(syncCall(asking, 0, "h", 1_000).lease).toMatchObject({ want: LEASE_MIN, release: 0 });
    // Pending and in flight beyond the budget: nothing to give back, never a negative release.
    const over = entryAt(0, { hitsSinceSync: 0, lastHitAt: 0, budget: 3, pending: 4 });
    expect(syncCall(over, 4, "h", 1_000).lease?.release).toBe(0);
    expect(over.budget).toBe(3);
  });

  it("counts a move only when the count fell by more than this isolate's own hits, or the windows changed", () => {
    const entry = entryAt(0);
    entry.snapshot = [d(50), d(80)];
    refresh(entry, [d(45), d(75)], 5, 300);
    expect([entry.moved, entry.lastMoved, entry.syncedAt]).toEqual([0, false, 300]);
    refresh(entry, [d(40), d(69)], 5, 400);
    expect([entry.moved, entry.lastMoved]).toEqual([1, true]);
    // Quota that came back is no move.
    refresh(entry, [d(90), d(90)], 0, 500);
    expect([entry.moved, entry.lastMoved]).toEqual([1, false]);
    refresh(entry, [d(90)], 0, 600);
    expect([entry.moved, entry.lastMoved, entry.snapshot]).toEqual([2, true, [d(90)]]);
  });

  it("averages the gaps between hits, the first one whole and none negative", () => {
    const entry = entryAt(0, { lastHitAt: 1_000 });
    noteHit(entry, 1_040);
    expect(entry.gapMs).toBe(40);
    entry.lastHitAt = 1_040;
    noteHit(entry, 1_060);
    expect(entry.gapMs).toBe(30);
    entry.lastHitAt = 2_000;
    noteHit(entry, 1_500);
    expect(entry.gapMs).toBe(15);
  });

  it("is hot while its hits come more than twice a sync period and the last came within one (both bounds exact)", () => {
    const entry = entryAt(0, { lastHitAt: 1_000, gapMs: 49 });
    expect(isHot(entry, 1_099)).toBe(true);
    expect(isHot(entry, 1_100)).toBe(false);
    entry.gapMs = 50;
    expect(isHot(entry, 1_000)).toBe(false);
  });

  it("answers a local hit from the view less its unsent and in-flight hits, aged to now, never below its floors", () => {
    const entry = entryAt(0, { pending: 3, inflight: 4 });
    entry.snapshot = [d(50, 5_000, 2_000), d(5, 100, 60)];
    setView(entry, entry.snapshot, 1_000);
    expect(leaseVerdict(entry, 1_080)).toEqual({
      allowed: true,
      decisions: [
        { allowed: true, limit: 100, remaining: 43, resetAfterMs: 4_920, retryAfterMs: 0, effectiveWindowMs: 1_920 },
        { allowed: true, limit: 100, remaining: 0, resetAfterMs: 20, retryAfterMs: 0, effectiveWindowMs: 1 },
      ],
    });
    expect(leaseVerdict(entry, 1_200).decisions[1]).toMatchObject({ resetAfterMs: 0, effectiveWindowMs: 1 });
  });
});
