/**
 * An isolate's pre-counting table (src/isolate/precount.ts, precount-chain.ts)
 * against plain counter objects (test/support/plain-counters.ts: the
 * object's own lease modules and algorithms, no storage), on driven time, so
 * it also runs in Node for mutation testing (docs/testing.md). Exact counts:
 * which hits are local, which go to the object, what the object holds once
 * the isolates are quiet. The same rules against real objects:
 * test/isolate/precount.slow.test.ts.
 */
import { describe, expect, it } from "vitest";
import type { CounterCall, SendBatch } from "../../src/stored/wire-calls.ts";
import { PRECOUNT_ENTRIES, PrecountTable } from "../../src/isolate/precount.ts";
import type { drivenTime } from "../support/driven-time.ts";
import { withPlainCounters } from "../support/plain-counters.ts";

const SYNC_MS = 25;
const limitCall = (key: string, limit: number): CounterCall => ({
  key,
  cost: 1,
  limits: [{ id: `fw-${limit}`, algorithm: "fixed_window", limit, windowMs: 3_600_000, burst: limit }],
});
type Time = ReturnType<typeof drivenTime>;

function edge(time: Time, send: SendBatch) {
  const background: Promise<unknown>[] = [];
  const sent: CounterCall[][] = [];
  /** The leases the object's answers carried, in order. */
  const leases: number[] = [];
  const table = new PrecountTable(
    time.track(async (name, calls) => {
      sent.push([...calls]);
      const verdicts = await send(name, calls);
      for (const v of verdicts) if (v.reserved !== undefined) leases.push(v.reserved);
      return verdicts;
    }),
    time.now,
  );
  return { table, background, sent, leases, defer: (p: Promise<unknown>) => void background.push(p) };
}

/** Drive time until every background sync has ended; fails if some still runs after `limitMs`. */
async function untilQuiet(time: Time, backgrounds: Promise<unknown>[][], limitMs = 100 * SYNC_MS) {
  let done = false;
  void Promise.allSettled(backgrounds.flat()).then(() => (done = true));
  for (let waited = 0; !done && waited < limitMs; waited += SYNC_MS) await time.advance(SYNC_MS);
  await time.settle();
  expect(done).toBe(true);
}

const remaining = async (send: SendBatch, name: string, call: CounterCall) => (await send(name, [{ ...call, cost: 0 }]))[0].decisions[0].remaining;

describe("pre-counting table", () => {
  it("learns on the first hit, leases on the second, then decides locally exactly the hits its lease covers", () =>
    withPlainCounters(async (time, send) => {
      const e = edge(time, send);
      const call = limitCall("lease", 801);
      await e.table.decide("obj", call, SYNC_MS, e.defer);
      expect(e.sent).toEqual([[call]]);
      expect(e.table.view(call)?.[0].remaining).toBe(800);
      await e.table.decide("obj", call, SYNC_MS, e.defer);
      // Hot now (two hits at one instant): the hit, then a sync reporting nothing and asking for a lease.
      expect(e.sent[1].map((c) => c.kind)).toEqual([undefined, "absorb"]);
      expect(e.leases).toHaveLength(1);
      let local = 0;
      while (e.sent.length === 2) {
        expect(e.table.canDecideLocally(call, SYNC_MS)).toBe(true);
        await e.table.decide("obj", call, SYNC_MS, e.defer);
        local += 1;
      }
      // Time stands still, so only a spent lease sends: exactly the leased hits were decided here.
      expect(local).toBe(e.leases[0]);
      expect(e.table.stats.local).toBe(local);
      expect(e.table.stats.strong).toBe(2);
      await untilQuiet(time, [e.background]);
      expect(await remaining(send, "obj", call)).toBe(801 - 2 - local);
      expect(e.table.stats.overshoot).toBe(0);
      // Quiet: the view is the object's count, and the lease was given back.
      expect(e.table.view(call)?.[0].remaining).toBe(801 - 2 - local);
      expect(e.table.canDecideLocally(call, SYNC_MS)).toBe(false);
    }));

  it("on one isolate allows exactly the limit, and the object holds every hit", () =>
    withPlainCounters(async (time, send) => {
      const e = edge(time, send);
      const call = limitCall("one", 40);
      let allowed = 0;
      for (let i = 0; i < 100; i++) {
        if ((await e.table.decide("obj", call, SYNC_MS, e.defer)).allowed) allowed += 1;
        if (i % 7 === 0) await time.advance(3);
      }
      await untilQuiet(time, [e.background]);
      expect(allowed).toBe(40);
      expect(e.table.stats.local).toBeGreaterThan(0);
      expect(e.table.stats.local + e.table.stats.strong).toBe(100);
      expect(e.table.stats.overshoot).toBe(0);
      expect(await remaining(send, "obj", call)).toBe(0);
    }));

  for (const edges of [1, 4, 16, 64]) {
    it(`${edges} isolates together never allow more than the limit and lose no quota`, () =>
      withPlainCounters(async (time, send) => {
        const isolates = Array.from({ length: edges }, () => edge(time, send));
        const call = limitCall(`many-${edges}`, 150);
        let allowed = 0;
        let x = 7;
        for (let wave = 0; wave < 40; wave++) {
          if (wave > 0) await time.advance(1 + (wave % SYNC_MS));
          const targets = Array.from({ length: 10 }, () => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) >>> 16) % edges);
          const verdicts = await Promise.all(targets.map((n) => isolates[n].table.decide("obj", call, SYNC_MS, isolates[n].defer)));
          allowed += verdicts.filter((v) => v.allowed).length;
          expect(allowed).toBeLessThanOrEqual(150);
        }
        await untilQuiet(
          time,
          isolates.map((i) => i.background),
        );
        expect(isolates.reduce((sum, i) => sum + i.table.stats.overshoot, 0)).toBe(0);
        expect(allowed + (await remaining(send, "obj", call))).toBe(150);
        expect(isolates.some((i) => i.table.stats.local > 0)).toBe(true);
      }));
  }

  it("decides a counter hit less often than twice per sync_ms strongly, with no background sync", () =>
    withPlainCounters(async (time, send) => {
      const e = edge(time, send);
      const call = limitCall("cold", 1_000);
      for (const gap of [SYNC_MS + 10, SYNC_MS + 10, SYNC_MS, 20, 20, 20]) {
        expect((await e.table.decide("obj", call, SYNC_MS, e.defer)).allowed).toBe(true);
        await time.advance(gap);
      }
      expect([e.table.stats.local, e.table.stats.strong, e.sent.length, e.background.length]).toEqual([0, 6, 6, 0]);
      expect(e.sent.every((calls) => calls.length === 1)).toBe(true);
      for (let i = 0; i < 5; i++) await e.table.decide("obj", call, SYNC_MS, e.defer);
      expect(e.table.stats.local).toBe(3);
      await untilQuiet(time, [e.background]);
      expect(await remaining(send, "obj", call)).toBe(1_000 - 11);
    }));

  it("keeps the hits a failed sync carried, and sends them with the next one", () =>
    withPlainCounters(async (time, send) => {
      let failing = false;
      const flaky: SendBatch = (name, calls) => (failing && calls.some((c) => c.kind === "absorb") ? Promise.reject(new Error("down")) : send(name, calls));
      const e = edge(time, flaky);
      const call = limitCall("flaky", 500);
      let allowed = 0;
      for (let i = 0; i < 30; i++) if ((await e.table.decide("obj", call, SYNC_MS, e.defer)).allowed) allowed += 1;
      failing = true;
      await time.advance(3 * SYNC_MS);
      for (let i = 0; i < 30; i++) {
        try {
          if ((await e.table.decide("obj", call, SYNC_MS, e.defer)).allowed) allowed += 1;
        } catch (error) {
          expect((error as Error).message).toBe("down");
        }
      }
      failing = false;
      await untilQuiet(time, [e.background]);
      expect(await remaining(send, "obj", call)).toBe(500 - allowed);
      expect(e.table.stats.overshoot).toBe(0);
    }));

  it(`pre-counts at most ${PRECOUNT_ENTRIES} counters, forgetting the oldest idle one`, () =>
    withPlainCounters(async (time, send) => {
      const e = edge(time, send);
      for (let i = 0; i <= PRECOUNT_ENTRIES; i++) await e.table.decide("obj", limitCall(`key-${i}`, 10), SYNC_MS, e.defer);
      expect(e.table.size).toBe(PRECOUNT_ENTRIES);
      expect(e.table.view(limitCall("key-0", 10))).toBeUndefined();
      expect(e.table.view(limitCall("key-1", 10))?.[0].remaining).toBe(9);
      expect(e.table.view(limitCall(`key-${PRECOUNT_ENTRIES}`, 10))?.[0].remaining).toBe(9);
    }));
});
