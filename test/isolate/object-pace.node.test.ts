/**
 * ObjectPace on its own, plain (no clock: every call says its instant):
 * near and far at the shortest round trip against the batching interval,
 * the hold after a contended batch, a far object's interval, at most
 * MAX_IN_FLIGHT RPCs, BUSY_FOR_MS, the drifting shortest round trip that
 * says when a waiter's answer is due, and the sweep of idle objects.
 * The coalescer's use of it runs in coalescer.test.ts and coalescer-bounds.test.ts.
 * Breaks tried, each failing a test here: far at ≥ instead of >, the sweep at size > 1,024, a hold ending
 * now kept, an RPC BUSY_FOR_MS old kept, MAX_IN_FLIGHT as >, a 16th for the drift, an unknown answer
 * taking the last RPC off.
 */
import { describe, expect, it } from "vitest";
import { AT_ONCE_RTT_MS, CONTENDED_INTERVAL_MS, FAR_INTERVAL_MS } from "../../src/isolate/coalescer.ts";
import { BUSY_FOR_MS, MAX_IN_FLIGHT, ObjectPace } from "../../src/isolate/object-pace.ts";

/** The coalescer's batching interval: the shortest round trip above it makes an object far. */
const NEAR_GAP = CONTENDED_INTERVAL_MS;
/** Not the coalescer's default (FAR_INTERVAL_MS), so that a default taken instead of the option shows. */
const FAR_GAP = FAR_INTERVAL_MS + 2;
/** Not the coalescer's default (AT_ONCE_RTT_MS) either. */
const AT_ONCE_RTT = AT_ONCE_RTT_MS + 20;
const pace = () => new ObjectPace({ contendedIntervalMs: NEAR_GAP, farIntervalMs: FAR_GAP, atOnceRttMs: AT_ONCE_RTT });

/** An object whose shortest round trip is `rttMs`, with nothing in flight at `at`. */
function withRtt(rttMs: number, at = 1_000) {
  const p = pace();
  p.sent("o", at - rttMs, false);
  p.settled("o", at - rttMs, at);
  return p;
}

describe("ObjectPace", () => {
  it("paces with the coalescer's documented defaults: 8 ms for a near object, 1 ms between a far one's batches, none past 100 ms", () => {
    expect([CONTENDED_INTERVAL_MS, FAR_INTERVAL_MS, AT_ONCE_RTT_MS, MAX_IN_FLIGHT, BUSY_FOR_MS]).toEqual([8, 1, 100, 64, 1_000]);
  });

  it("knows nothing of an object it never sent to", () => {
    const p = pace();
    expect(p.busy("o", 5)).toBe(false);
    expect(p.heldUntil("o")).toBe(0);
    expect(p.expectedAt("o", 5)).toBe(5);
    p.settled("o", 1, 2); // an unknown object's answer changes nothing
    expect(p.expectedAt("o", 5)).toBe(5);
  });

  it("keeps a near object busy while its one RPC is in flight, at most BUSY_FOR_MS", () => {
    const p = pace();
    p.sent("o", 100, false);
    expect(p.heldUntil("o")).toBe(0); // an uncontended batch holds nothing
    expect(p.busy("o", 100)).toBe(true);
    expect(p.busy("o", 100 + BUSY_FOR_MS - 1)).toBe(true);
    expect(p.busy("o", 100 + BUSY_FOR_MS)).toBe(false);
    expect(p.busy("other", 100)).toBe(false);
  });

  it("frees a near object when its RPC settles, and only that RPC", () => {
    const p = pace();
    p.sent("o", 100, false);
    p.sent("o", 101, false);
    p.settled("o", 50, 102); // no RPC left at 50: nothing is taken off
    p.settled("o", 100, 102);
    expect(p.busy("o", 102)).toBe(true);
    p.settled("o", 101, 103);
    expect(p.busy("o", 103)).toBe(false);
  });

  it("holds a near object contendedIntervalMs after a contended batch, even once answered", () => {
    const p = pace();
    p.sent("o", 100, true);
    expect(p.heldUntil("o")).toBe(100 + NEAR_GAP);
    p.settled("o", 100, 101);
    expect(p.busy("o", 100 + NEAR_GAP - 1)).toBe(true);
    expect(p.busy("o", 100 + NEAR_GAP)).toBe(false);
    // A batch sent earlier in time never shortens the hold.
    p.sent("o", 95, true);
    expect(p.heldUntil("o")).toBe(100 + NEAR_GAP);
  });

  it(`is near at a shortest round trip of ${NEAR_GAP} ms (the interval) and far above it`, () => {
    const near = withRtt(NEAR_GAP);
    near.sent("o", 2_000, false);
    expect(near.heldUntil("o")).toBe(0);
    expect(near.busy("o", 2_000 + FAR_GAP)).toBe(true); // waits for the RPC in flight

    const far = withRtt(NEAR_GAP + 1);
    far.sent("o", 2_000, false);
    expect(far.heldUntil("o")).toBe(2_000 + FAR_GAP); // contended or not, the next batch waits the far interval
    expect(far.busy("o", 2_000 + FAR_GAP - 1)).toBe(true);
    expect(far.busy("o", 2_000 + FAR_GAP)).toBe(false); // with its RPC still in flight
  });

  it(`keeps the far interval at a shortest round trip of atOnceRttMs and lets every batch leave at once above it`, () => {
    // Broken on purpose once (atOnceRttMs compared with ≥): the object at exactly atOnceRttMs lost its interval.
    const edge = withRtt(AT_ONCE_RTT);
    edge.sent("o", 2_000, true);
    expect(edge.heldUntil("o")).toBe(2_000 + FAR_GAP);
    expect(edge.busy("o", 2_000)).toBe(true);

    const beyond = withRtt(AT_ONCE_RTT + 1);
    beyond.sent("o", 2_000, true);
    expect(beyond.heldUntil("o")).toBe(2_000);
    expect(beyond.busy("o", 2_000)).toBe(false); // with its RPC still in flight
    for (let i = 1; i < MAX_IN_FLIGHT; i++) beyond.sent("o", 2_000, true);
    expect(beyond.busy("o", 2_000)).toBe(true); // still at most MAX_IN_FLIGHT
  });

  it("paces a far object's contended batches by farIntervalMs, not contendedIntervalMs", () => {
    const far = withRtt(50);
    far.sent("o", 2_000, true);
    expect(far.heldUntil("o")).toBe(2_000 + FAR_GAP);
  });

  it(`sends at most ${MAX_IN_FLIGHT} RPCs to a far object, counting only those younger than BUSY_FOR_MS`, () => {
    const far = withRtt(50);
    const t0 = 2_000;
    for (let i = 0; i < MAX_IN_FLIGHT - 1; i++) far.sent("o", t0 + i * FAR_GAP, false);
    const last = t0 + (MAX_IN_FLIGHT - 1) * FAR_GAP;
    expect(far.busy("o", last)).toBe(false); // 63 in flight, hold over
    far.sent("o", last, false);
    expect(far.busy("o", last + FAR_GAP)).toBe(true); // 64 in flight
    far.settled("o", t0 + FAR_GAP, last + FAR_GAP);
    expect(far.busy("o", last + FAR_GAP)).toBe(false); // 63 again
    far.sent("o", last + FAR_GAP, false);
    expect(far.busy("o", t0 + BUSY_FOR_MS - 1)).toBe(true);
    expect(far.busy("o", t0 + BUSY_FOR_MS)).toBe(false); // the one sent at t0 no longer counts
  });

  it("expects an answer one shortest round trip after it left, drifting up by a 32nd of a longer one", () => {
    const p = pace();
    p.sent("o", 0, false);
    expect(p.expectedAt("o", 500)).toBe(500); // no round trip seen yet
    p.settled("o", 0, 40);
    expect(p.expectedAt("o", 500)).toBe(540);
    p.sent("o", 100, false);
    p.settled("o", 100, 172); // 72 ms: the base moves (72 − 40) / 32 = 1 up
    expect(p.expectedAt("o", 500)).toBe(541);
    p.sent("o", 200, false);
    p.settled("o", 200, 210); // shorter: taken at once
    expect(p.expectedAt("o", 500)).toBe(510);
    p.sent("o", 300, false);
    p.settled("o", 300, 310); // equal: unchanged
    expect(p.expectedAt("o", 500)).toBe(510);
  });

  it("drops idle objects when 1,024 are kept, and keeps those with a hold or an RPC in flight", () => {
    const p = pace();
    const now = 10_000;
    /** A near object whose round trip of 5 ms is known. */
    const known = (name: string) => {
      p.sent(name, 0, false);
      p.settled(name, 0, 5);
    };
    for (const name of ["held", "hold-over", "flying", "aged", "answered"]) known(name);
    p.sent("held", now - NEAR_GAP + 1, true); // held one more ms
    p.sent("hold-over", now - NEAR_GAP, true); // hold ends now
    p.sent("flying", now - BUSY_FOR_MS + 1, false); // in flight, one ms short of BUSY_FOR_MS
    p.sent("aged", now - BUSY_FOR_MS, false); // unanswered for BUSY_FOR_MS
    p.settled("held", now - NEAR_GAP + 1, now - NEAR_GAP + 6); // answered, its round trip 5 ms again
    p.settled("hold-over", now - NEAR_GAP, now - NEAR_GAP + 5);
    for (let i = 5; i < 1_024; i++) p.sent(`idle-${i}`, 0, false);
    p.sent("new", now, false); // the 1,025th: sweeps first
    expect(p.expectedAt("held", 0)).toBe(5);
    expect(p.heldUntil("held")).toBe(now + 1);
    expect(p.expectedAt("flying", 0)).toBe(5);
    expect(p.expectedAt("hold-over", 0)).toBe(0); // forgotten
    expect(p.expectedAt("aged", 0)).toBe(0);
    expect(p.expectedAt("answered", 0)).toBe(0);
  });

  it("sweeps nothing below 1,024 objects", () => {
    const p = pace();
    p.sent("answered", 0, false);
    p.settled("answered", 0, 10);
    for (let i = 1; i < 1_023; i++) p.sent(`idle-${i}`, 0, false);
    p.sent("new", 10_000, false); // the 1,024th
    expect(p.expectedAt("answered", 0)).toBe(10);
  });
});
