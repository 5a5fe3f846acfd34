/**
 * The lease an isolate asks for covers two sync periods and two round trips
 * at its recent rate: with one sync per counter at a time, a lease sized for
 * the sync period alone runs dry while a far-away object's answer is on its
 * way, and every hit then waits for the object (docs: pre-counting). A
 * lease that ran short grows fourfold (LEASE_GROWTH), and hits waiting for the object
 * keep the counter from looking idle.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { CounterCall, CounterVerdict } from "../../src/stored/wire-calls.ts";
import { canSpend, LEASE_GROWTH, LEASE_MIN, newEntry, setLease, syncCall } from "../../src/isolate/precount-view.ts";

const call: CounterCall = { key: "k", cost: 1, limits: [{ id: "l", algorithm: "fixed_window", limit: 1_000_000, windowMs: 3_600_000, burst: 1_000_000 }] };
const decision = { allowed: true, limit: 1_000_000, remaining: 999_999, resetAfterMs: 1000, retryAfterMs: 0, effectiveWindowMs: 1000 };

describe("pre-counting lease size", () => {
  it("asks for its rate × (2 × sync_ms + 2 × the measured round trip), at least LEASE_MIN (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 5, max: 1000 }), // sync_ms
        fc.integer({ min: 0, max: 400 }), // round trip of the last sync
        fc.integer({ min: 0, max: 5000 }), // hits since the last sync
        fc.integer({ min: 1, max: 1000 }), // ms since the last sync
        (syncMs, roundTrip, hits, elapsed) => {
          const start = 10_000;
          const entry = newEntry("obj", call, syncMs, [decision], start);
          const verdict: CounterVerdict = { allowed: true, decisions: [decision], reserved: 10 };
          setLease(entry, verdict, start, start + roundTrip);
          entry.hitsSinceSync = hits;
          entry.syncSentAt = start + roundTrip;
          const now = start + roundTrip + elapsed;
          entry.lastHitAt = now;
          const sent = syncCall(entry, 0, "me", now);
          const rate = hits / elapsed;
          expect(sent.lease?.want).toBe(Math.max(LEASE_MIN, Math.ceil(2 * (syncMs + roundTrip) * rate)));
        },
      ),
    );
  });

  it("follows the round trip as it changes, as a moving average", () => {
    const entry = newEntry("obj", call, 100, [decision], 0);
    const verdict: CounterVerdict = { allowed: true, decisions: [decision], reserved: 10 };
    setLease(entry, verdict, 0, 200);
    expect(entry.roundTripMs).toBe(200);
    setLease(entry, verdict, 1000, 1000);
    expect(entry.roundTripMs).toBe(150);
  });

  it("keeps its lease while every hit waits for the object, however long since the last one was decided", () => {
    const entry = newEntry("obj", call, 100, [decision], 0);
    setLease(entry, { allowed: true, decisions: [decision], reserved: 40 }, 0, 200);
    entry.lastHitAt = 200;
    entry.hitsSinceSync = 50;
    entry.syncSentAt = 0;
    entry.asking = 50; // the object is 100 ms away each way: all of them still wait for it
    const sent = syncCall(entry, 0, "me", 500);
    expect(sent.lease?.release).toBe(0);
    expect(sent.lease?.want).toBeGreaterThan(0);
    expect(entry.budget).toBe(40);
    // With nothing waiting, the same pause is idleness: the lease goes back.
    entry.asking = 0;
    entry.lastHitAt = 200;
    const quiet = syncCall(entry, 0, "me", 500);
    expect(quiet.lease?.want).toBe(0);
    expect(quiet.lease?.release).toBe(40);
  });

  it("grows a lease that ran short by LEASE_GROWTH, whatever rate the waits let through (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100_000 }), fc.integer({ min: 1, max: 50 }), fc.integer({ min: 0, max: 400 }), (budget, short, roundTrip) => {
        const entry = newEntry("obj", call, 100, [decision], 0);
        setLease(entry, { allowed: true, decisions: [decision], reserved: budget }, 0, roundTrip);
        entry.hitsSinceSync = short;
        entry.short = short;
        entry.syncSentAt = 0;
        entry.lastHitAt = 1_000;
        const sent = syncCall(entry, 0, "me", 1_000);
        const byRate = Math.max(LEASE_MIN, Math.ceil(2 * (100 + roundTrip) * (short / 1_000)));
        expect(sent.lease?.want).toBe(Math.max(byRate, LEASE_GROWTH * budget));
        // The next sync, with no hit decided strongly since, asks by its rate again.
        entry.hitsSinceSync = short;
        entry.lastHitAt = 2_000;
        expect(syncCall(entry, 0, "me", 2_000).lease?.want).toBe(byRate);
      }),
    );
  });

  it("spends a lease it still holds after a pause longer than sync_ms, and none once a sync gave it back", () => {
    const entry = newEntry("obj", call, 100, [decision], 0);
    setLease(entry, { allowed: true, decisions: [decision], reserved: 40 }, 0, 200);
    entry.lastHitAt = 200;
    // 250 ms without a hit (a stall on the way to the origin, say): the lease is still this isolate's to spend.
    expect(canSpend(entry, 1, 100, 450)).toBe(true);
    // The next sync finds the counter idle and gives the lease back; nothing is decided locally after.
    entry.syncSentAt = 200;
    syncCall(entry, 0, "me", 450);
    setLease(entry, { allowed: true, decisions: [decision], reserved: 0 }, 450, 460);
    expect(canSpend(entry, 1, 100, 470)).toBe(false);
  });
});
