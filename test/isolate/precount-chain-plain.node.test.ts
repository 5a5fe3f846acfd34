/**
 * Refresh chains and syncs of edge pre-counting (src/isolate/precount-chain.ts)
 * against plain counter objects (test/support/plain-counters.ts), on driven
 * time, so they also run in Node for mutation testing (docs/testing.md):
 * when a chain syncs (aligned to sync_ms), when it stops (exact counts of
 * calls), where it is hosted and for how long, one sync at a time, and the
 * overshoot an object restart can cause (at most the leases outstanding,
 * once). The same rules through real objects: test/isolate/precount.slow.test.ts.
 */
import { describe, expect, it } from "vitest";
import type { CounterCall, SendBatch } from "../../src/stored/wire-calls.ts";
import { CHAIN_HANDOFF_MS, CHAIN_MAX_MS, PrecountTable } from "../../src/isolate/precount.ts";
import { drivenTime, trackedRequest } from "../support/driven-time.ts";
import { plainCounters } from "../support/plain-counters.ts";

const S = 25;
const limitCall = (key: string, limit: number): CounterCall => ({
  key,
  cost: 1,
  limits: [{ id: `fw-${limit}`, algorithm: "fixed_window", limit, windowMs: 3_600_000, burst: limit }],
});

const request = trackedRequest;

describe("pre-counting refresh chains", () => {
  it("an idle key syncs at the next multiples of sync_ms: once with the local hits, once more to see no change, then stops", async () => {
    const time = drivenTime();
    try {
      const send = plainCounters(time.now);
      const at: number[] = [];
      const kinds: (string | undefined)[][] = [];
      const table = new PrecountTable(
        time.track((name, calls) => {
          at.push(time.now());
          kinds.push(calls.map((c) => c.kind));
          return send(name, calls);
        }),
        time.now,
      );
      const call = limitCall("idle", 1_000);
      const host = request();
      for (let i = 0; i < 5; i++) await table.decide("obj", call, S, host.defer);
      expect(table.stats).toEqual({ local: 3, strong: 2, flushes: 0, overshoot: 0 });
      await time.advance(10 * S);
      expect(host.settled()).toBe(true);
      const start = 1_000_000;
      expect(at).toEqual([start, start, start + S, start + 2 * S]);
      expect(kinds).toEqual([[undefined], [undefined, "absorb"], ["absorb"], ["absorb"]]);
      expect(table.stats).toEqual({ local: 3, strong: 2, flushes: 2, overshoot: 0 });
      const [peek] = await send("obj", [{ ...call, cost: 0 }]);
      expect(peek.decisions[0].remaining).toBe(995);
      expect(table.view(call)?.[0].remaining).toBe(995);
      // The lease came back: nothing is held for this isolate any more.
      expect(table.canDecideLocally(call, S)).toBe(false);
    } finally {
      time.stop();
    }
  });

  it("moves the chain to a newer request after CHAIN_HANDOFF_MS, and ends it CHAIN_MAX_MS after its host started it", async () => {
    const time = drivenTime();
    const frozen = { clock: false };
    try {
      const send = plainCounters(time.now);
      const call = limitCall("hosted", 2e6);
      // Someone else takes a hit before each of this isolate's calls: the count always moves, so only the cap ends the chain.
      const busy: SendBatch = async (name, calls) => {
        await send(name, [call]);
        return send(name, calls);
      };
      let sends = 0;
      const table = new PrecountTable(
        time.track((name, calls) => {
          sends += 1;
          return busy(name, calls);
        }),
        time.now,
      );
      const first = request();
      await table.decide("obj", call, S, first.defer);
      expect(first.work).toHaveLength(0);
      const host1 = request();
      await table.decide("obj", call, S, host1.defer);
      expect(host1.work).toHaveLength(1);
      await time.advance(3 * S, frozen);
      const same = request();
      time.jump(CHAIN_HANDOFF_MS - 1);
      await table.decide("obj", call, S, same.defer);
      expect(same.work).toHaveLength(0);
      time.jump(1);
      const host2 = request();
      await table.decide("obj", call, S, host2.defer);
      expect(host2.work).toHaveLength(1);
      await time.advance(S, frozen);
      expect(host1.settled()).toBe(true);
      const before = sends;
      await time.advance(10 * S, frozen);
      expect(sends - before).toBe(10);
      expect(host2.settled()).toBe(false);
      time.jump(CHAIN_MAX_MS - 1);
      await time.advance(S, frozen);
      expect(host2.settled()).toBe(false);
      time.jump(1);
      await time.advance(S, frozen);
      expect(host2.settled()).toBe(true);
      const after = sends;
      await time.advance(3 * S, frozen);
      expect(sends).toBe(after);
    } finally {
      time.stop();
    }
  });

  it("sends one sync at a time per counter, and a failed sync's hits go with the next one", async () => {
    const time = drivenTime();
    try {
      const send = plainCounters(time.now);
      let inFlight = 0;
      let most = 0;
      let failNext = 0;
      const table = new PrecountTable(
        time.track(async (name, calls) => {
          const syncing = calls.some((c) => c.kind === "absorb");
          if (syncing) most = Math.max(most, ++inFlight);
          try {
            await Promise.resolve();
            if (syncing && failNext > 0) {
              failNext -= 1;
              throw new Error("lost");
            }
            return await send(name, calls);
          } finally {
            if (syncing) inFlight -= 1;
          }
        }),
        time.now,
      );
      const call = limitCall("one-at-a-time", 10_000);
      const host = request();
      let allowed = 0;
      for (let step = 0; step < 40; step++) {
        if (step === 20) failNext = 2;
        const verdicts = await Promise.allSettled(Array.from({ length: 8 }, () => table.decide("obj", call, S, host.defer)));
        allowed += verdicts.filter((v) => v.status === "fulfilled" && v.value.allowed).length;
        await time.advance(3);
      }
      await time.advance(20 * S);
      expect(most).toBe(1);
      const [peek] = await send("obj", [{ ...call, cost: 0 }]);
      expect(peek.decisions[0].remaining).toBe(10_000 - allowed);
      expect(table.view(call)?.[0].remaining).toBe(10_000 - allowed);
      expect(table.stats.overshoot).toBe(0);
    } finally {
      time.stop();
    }
  });

  it("after an object restart, hits its lost lease covered are charged while they fit: the rest is counted as overshoot, once", async () => {
    const time = drivenTime();
    try {
      const send = plainCounters(time.now);
      const table = new PrecountTable(time.track(send), time.now);
      const call = limitCall("restart", 20);
      const host = request();
      await table.decide("obj", call, S, host.defer);
      await table.decide("obj", call, S, host.defer);
      // Hot: a lease of all 18 left.
      for (let i = 0; i < 10; i++) expect(table.canDecideLocally(call, S) && (await table.decide("obj", call, S, host.defer)).allowed).toBe(true);
      expect(table.stats.local).toBe(10);
      send.restart();
      // The object no longer counts the lease: 18 free, and another isolate takes 15 of them.
      const [other] = await send("obj", [{ ...call, cost: 15 }]);
      expect(other.allowed).toBe(true);
      await time.advance(3 * S);
      // The 10 local hits arrive uncovered: 3 fit, 7 are overshoot.
      expect(table.stats.overshoot).toBe(7);
      const [peek] = await send("obj", [{ ...call, cost: 0 }]);
      expect(peek.decisions[0].remaining).toBe(0);
      expect(table.view(call)?.[0].remaining).toBe(0);
      await time.advance(10 * S);
      expect(table.stats.overshoot).toBe(7);
    } finally {
      time.stop();
    }
  });
});
