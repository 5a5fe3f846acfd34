/**
 * A lease's lifetime, on both sides (docs/precount.md, "Giving back" and
 * "Limits of the guarantee"): the isolate stops spending 2 × S + 1 s after
 * it sent the call that got it, a view that old is never decided from, the
 * longest `sync_ms` keeps leases alive between syncs, and an object that
 * restarts with leases out lets through at most those leases, once. Every
 * test runs the isolates and the object on one driven clock.
 */
import { env } from "cloudflare:workers";
import { evictDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/config.ts";
import { MAX_LEASE_TTL_MS } from "../../src/durable/counters/leases/precount-sync.ts";
import type { CounterCall, SendBatch } from "../../src/stored/wire-calls.ts";
import { leaseTtl, PrecountTable } from "../../src/isolate/precount.ts";
import { BOUNDS } from "../../src/rules/keys.ts";
import { drivenTime } from "../support/driven-time.ts";
import { driveObject, OBJECT_EPOCH } from "../support/driven-object.ts";

const counters = (env as unknown as Env).COUNTERS;
const send: SendBatch = (name, calls) => counters.getByName(name).decide(calls);
type Time = ReturnType<typeof drivenTime>;

const hourly = (key: string, limit: number, strict = false): CounterCall => ({
  key,
  cost: 1,
  limits: [{ id: `life-${limit}`, algorithm: "fixed_window", limit, windowMs: 3_600_000, burst: limit, strict }],
});

/** An edge on the driven clock; `transport` may wrap the object (a slow round trip, a dead link). */
function drivenEdge(time: Time, transport: SendBatch = send) {
  let calls = 0;
  const background: Promise<unknown>[] = [];
  const table = new PrecountTable(
    time.track((name, batch) => {
      calls += 1;
      return transport(name, batch);
    }),
    time.now,
  );
  return { table, background, defer: (p: Promise<unknown>) => void background.push(p), rpcs: () => calls };
}

const remainingOf = async (name: string, call: CounterCall) => (await send(name, [{ ...call, cost: 0 }]))[0].decisions[0].remaining;

/** Drive time until every background sync has ended (at most `limitMs`). */
async function untilQuiet(time: Time, backgrounds: Promise<unknown>[][], stepMs: number, limitMs: number) {
  let done = false;
  void Promise.allSettled(backgrounds.flat()).then(() => (done = true));
  for (let waited = 0; !done && waited < limitMs; waited += stepMs) await time.advance(stepMs, { stepMs });
  await time.settle();
  expect(done).toBe(true);
}

describe("an isolate's lease and view have an end", () => {
  // Break tried: canSpend without `now < entry.until` (the view, taken when the answer arrived 30 ms after the
  // call left, was still fresh): the hit at the lease's end was decided locally. And freshFor as 2 × S + 2 s: the
  // same. (The view's own freshness check cannot fail alone: a view is never older than the lease it came with.)
  it("decides locally until 2 × sync_ms + 1 s after the lease's call left, then asks the object", async () => {
    const S = 25;
    const rtt = 30;
    const time = drivenTime(OBJECT_EPOCH);
    try {
      const key = `life-end-${Math.random()}`;
      const name = `life-obj-${key}`;
      await driveObject(counters.getByName(name), time.now);
      // Each call takes `rtt` on the clock: the isolate counts the lease from before it sent, the view from after.
      const leases: number[] = [];
      const slow: SendBatch = async (n, calls) => {
        const answer = await send(n, calls);
        for (const v of answer) if (v.reserved !== undefined) leases.push(v.reserved);
        time.jump(rtt);
        return answer;
      };
      const { table, background, defer, rpcs } = drivenEdge(time, slow);
      const call = hourly(key, 1_000);
      await table.decide(name, call, S, defer); // strong: learns the counter
      const sentAt = time.now();
      await table.decide(name, call, S, defer); // strong and hot: asks for a lease
      expect(rpcs()).toBe(2);
      expect(leaseTtl(S)).toBe(2 * S + 1_000);
      // No timer fires (jump): the refresh chain stays asleep, so only the lease's end can send a hit to the object.
      time.jump(sentAt + leaseTtl(S) - 1 - time.now());
      expect(table.decideLocally(call, S, defer)).toBeDefined();
      expect(rpcs()).toBe(2);
      time.jump(1);
      expect(table.canDecideLocally(call, S)).toBe(false);
      expect(table.decideLocally(call, S, defer)).toBeUndefined();
      await table.decide(name, call, S, defer);
      expect(rpcs()).toBe(3);
      await untilQuiet(time, [background], S, 200 * S);
      expect(table.stats.overshoot).toBe(0);
      // The object ended the first lease at the same instant (it counts from when it got the call) and charged it
      // whole, the local hit included, once; the later leases came back.
      expect(leases[0]).toBeGreaterThan(1);
      expect(await remainingOf(name, call)).toBe(1_000 - 3 - leases[0]);
    } finally {
      time.stop();
    }
  });
});

describe("the longest sync_ms", () => {
  // The rules compiler refuses sync_ms above BOUNDS.maxSyncMs (test/rules/fixtures.ts); at the bound the documented
  // lease (2 × S + 1 s) is what the object grants, so a lease outlives the time between two syncs.
  // Break tried: BOUNDS.maxSyncMs 20,000 (a lease the object ends at MAX_LEASE_TTL_MS, before the next sync): the
  // lease expired between syncs, was charged whole, and its unspent part never came back (quota lost).
  it("keeps leases alive between syncs: no quota lost", async () => {
    const S = BOUNDS.maxSyncMs;
    expect(leaseTtl(S)).toBeLessThanOrEqual(MAX_LEASE_TTL_MS);
    const time = drivenTime(OBJECT_EPOCH);
    try {
      const key = `life-longest-${Math.random()}`;
      const name = `life-obj-${key}`;
      await driveObject(counters.getByName(name), time.now);
      const { table, background, defer } = drivenEdge(time);
      const limit = 100_000;
      const call = hourly(key, limit);
      let allowed = 0;
      const hit = async () => {
        if ((await table.decide(name, call, S, defer)).allowed) allowed += 1;
      };
      // A burst (a large lease), then one hit a second for three sync periods: hot, but far from spending the lease,
      // so it lives on renewals alone.
      for (let i = 0; i < 200; i++) {
        await hit();
        await time.advance(5, { stepMs: 5 });
      }
      for (let t = 0; t < 3 * S; t += 1_000) {
        await hit();
        await time.advance(1_000, { stepMs: 50 });
      }
      expect(table.stats.local).toBeGreaterThan(0);
      await untilQuiet(time, [background], 50, 20 * S);
      expect(table.stats.overshoot).toBe(0);
      // Every unit was allowed or is free again: the lease was given back, not charged at an expiry.
      expect(allowed + (await remainingOf(name, call))).toBe(limit);
    } finally {
      time.stop();
    }
  }, 120_000);
});

describe("an object restarting while leases are out", () => {
  // Docs, "Limits of the guarantee": the object forgets its leases; the isolates may still spend what they hold until
  // it expires: at most the leases outstanding at that moment, once; what does not fit is counted as overshoot.
  // Break tried: setLease keeping the larger of the old budget and the new lease (`Math.max(entry.budget,
  // verdict.reserved)`), so an isolate's lease outlives the object's word: allowed went past limit + leases out.
  it("lets through at most the leases outstanding at the restart, once", async () => {
    const S = 25;
    const time = drivenTime(OBJECT_EPOCH);
    try {
      const key = `life-restart-${Math.random()}`;
      const name = `life-obj-${key}`;
      const stub = counters.getByName(name);
      await driveObject(stub, time.now);
      // Strict: every charge is written before its answer, so the restart loses leases only, no hit.
      const limit = 200;
      const call = hourly(key, limit, true);
      const leased: number[] = [];
      const watching: SendBatch = async (n, calls) => {
        const verdicts = await send(n, calls);
        for (const v of verdicts) if (v.reserved !== undefined) leased.push(v.reserved);
        return verdicts;
      };
      const edge = drivenEdge(time, watching);
      let allowed = 0;
      const hit = async () => {
        if ((await edge.table.decide(name, call, S, edge.defer)).allowed) allowed += 1;
      };
      for (let i = 0; i < 40; i++) {
        await hit();
        await hit();
        await time.advance(2);
      }
      expect(edge.table.stats.local).toBeGreaterThan(0);
      // The lease out now (its unreported hits included).
      const outstanding = await leasedOut(name, call);
      expect(outstanding).toBeGreaterThan(0);
      await evictDurableObject(stub);
      await driveObject(stub, time.now);
      // Someone else takes everything the restarted object sees as free.
      while ((await send(name, [call]))[0].allowed) allowed += 1;
      // The edge keeps hitting past its lease's end and until its view must be refreshed.
      for (let t = 0; t < leaseTtl(S) + 4 * S; t += 2) {
        await hit();
        await time.advance(2);
      }
      await untilQuiet(time, [edge.background], S, 200 * S);
      expect(allowed).toBeGreaterThan(limit);
      expect(allowed).toBeLessThanOrEqual(limit + outstanding);
      // What did not fit is what the edge counts as overshoot.
      expect(edge.table.stats.overshoot).toBe(allowed - limit);
      expect(leased.length).toBeGreaterThan(0);
    } finally {
      time.stop();
    }
  });
});

/**
 * Quota leased out on the counter now: a strong request for all that is free as charged fits without the leases, so
 * it is refused provisionally and shows what is free beside them (nothing consumed: the leases must be out).
 */
async function leasedOut(name: string, call: CounterCall): Promise<number> {
  const free = await remainingOf(name, call);
  const [probe] = await send(name, [{ ...call, cost: free }]);
  expect(probe.provisional).toBe(true);
  return free - probe.decisions[0].remaining;
}
