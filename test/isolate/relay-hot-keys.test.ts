/**
 * Hot keys at the region's copy (docs/placement.md, "Hot keys at the
 * region's copy"): many simulated isolates (each its own EdgeRuntime, with
 * its own pre-counting table and lease holder) send one global key's
 * relayed calls, as every request with `request.cf` does once the key is
 * warm, to a real regional copy, which leases from a real home. Isolates and
 * objects run on one driven clock; calls are counted at the callee (each
 * object's own `calls`, and the isolates' calls per second to the copy).
 *
 * Breaks tried, each seen to fail here:
 * - the copy not counting quota lent to isolates as spent (`canSpend` in
 *   relay-lease.ts without `+ held.subleased`): "is exact" allowed 2,031 of
 *   2,000;
 * - the copy lending past its own lease's end (`ttl` in relay-sublease.ts
 *   without `held.until - now`): the lease-end test (lent for 5,000 ms with
 *   3,000 left of the copy's lease);
 * - no hint from the copy (`withHint` returning the verdict as is): the
 *   64-isolate test (no isolate pre-counted the key);
 * - the copy judging hot keys as a home does (`HOME_HOT` for `REGIONAL_HOT`
 *   in relay.ts): three regions at 800 a second, 0.198 calls a request;
 * - the hinted period not capped by the key's limit (`hintOf` returning the
 *   meter's period as is): "is exact with many callers" (1,898 of 2,000).
 */
import { env } from "cloudflare:workers";
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/config.ts";
import type { CounterObject } from "../../src/durable/counters/counter-object.ts";
import type { RelayCall } from "../../src/stored/wire-calls.ts";
import { counterStub, inRegion } from "../../src/durable/counters/regions.ts";
import { RELAY_LEASE_TTL_MS } from "../../src/durable/counters/relay.ts";
import { EdgeRuntime } from "../../src/isolate/runtime.ts";
import { driveObject, OBJECT_EPOCH, trackedCounters } from "../support/driven-object.ts";
import { drivenTime } from "../support/driven-time.ts";

const counters = (env as unknown as Env).COUNTERS;
type Time = ReturnType<typeof drivenTime>;
let n = 0;

/** A home and its weur copy on the driven clock, and a global key's relayed call. */
async function place(time: Time, limit: number, algorithm = "fixed_window") {
  const home = `relay-hot/shard/${++n}-${Math.random()}`;
  const copy = inRegion(home, "weur");
  const homeStub = counterStub(counters, home);
  const copyStub = counterStub(counters, copy);
  await driveObject(homeStub as never, time.now);
  await driveObject(copyStub as never, time.now);
  const call: RelayCall = {
    kind: "relay",
    object: copy,
    key: `hot-${n}`,
    cost: 1,
    limits: [{ id: `rh-${algorithm}-${limit}`, algorithm: algorithm as never, limit, windowMs: 3_600_000, burst: limit }],
  };
  /** Run the copy's alarm when its relay wants it (alarms on the driven clock never fire alone). */
  const alarmIfDue = async () => {
    if (await runInDurableObject(copyStub as never, (o: CounterObject) => o.relay.nextSyncAt <= time.now())) await runDurableObjectAlarm(copyStub as never);
  };
  const calls = async () => ({ home: (await homeStub.stats()).calls, copy: (await copyStub.stats()).calls });
  const charged = async () => limit - (await homeStub.decide([{ key: call.key, limits: call.limits, cost: 0 }]))[0].decisions[0].remaining;
  return { home, copy, homeStub, copyStub, call, alarmIfDue, calls, charged };
}

/** Calls the isolates sent, by the driven second they left in. */
function callLog() {
  const bySecond = new Map<number, number>();
  const byObjectSecond = new Map<string, number>();
  return {
    count: (at: number, name = "") => {
      bySecond.set(Math.floor(at / 1_000), (bySecond.get(Math.floor(at / 1_000)) ?? 0) + 1);
      const id = `${name}\u0001${Math.floor(at / 1_000)}`;
      byObjectSecond.set(id, (byObjectSecond.get(id) ?? 0) + 1);
    },
    in: (at: number) => bySecond.get(Math.floor(at / 1_000)) ?? 0,
    /** The most calls the isolates sent one object in one second. */
    max: () => Math.max(0, ...byObjectSecond.values()),
  };
}

/** A simulated isolate of region weur: its own edge runtime (no coalescing), its waitUntil work. */
function isolate(time: Time, log: ReturnType<typeof callLog>) {
  const background: Promise<unknown>[] = [];
  // The home and its copy were put on the clock by `place`.
  const edge = new EdgeRuntime(trackedCounters(time, { drive: false, onCall: (name) => log.count(time.now(), name) }), { coalesce: false, now: time.now });
  const defer = (p: Promise<unknown>) => void background.push(p);
  return { edge, background, go: (call: RelayCall) => edge.decideCalls(call.object, [{ call, cacheable: true, leasable: true }], defer) };
}

/** Every isolate sends one request every `gapMs` (staggered), for `ms` of driven time in `stepMs` steps; how many were allowed. */
async function drive(time: Time, p: Awaited<ReturnType<typeof place>>, edges: ReturnType<typeof isolate>[], gapMs: number, ms: number, stepMs = 5) {
  let allowed = 0;
  const slots = gapMs / stepMs;
  for (let step = 0; step * stepMs < ms; step++) {
    const due = edges.filter((_, e) => (step + e) % slots === 0);
    const answers = await Promise.all(due.map((edge) => edge.go(p.call)));
    allowed += answers.filter(([v]) => v.allowed).length;
    await time.advance(stepMs, { stepMs });
    if (step % (200 / stepMs) === 0) await p.alarmIfDue();
  }
  return allowed;
}

/**
 * Until every isolate's background syncs are done and each copy has reported and given back everything
 * (`alarmsIfDue` runs the copies' alarms when their relays want them).
 */
async function untilQuiet(time: Time, edges: ReturnType<typeof isolate>[], alarmsIfDue: () => Promise<unknown>, copyStubs: unknown[]) {
  let done = false;
  void Promise.allSettled(edges.flatMap((e) => e.background)).then(() => (done = true));
  for (let waited = 0; !done && waited < 30_000; waited += 100) await time.advance(100, { stepMs: 10 });
  expect(done).toBe(true);
  for (let waited = 0; waited < 12_000; waited += 500) {
    await time.advance(500, { stepMs: 50 });
    await alarmsIfDue();
    for (const stub of copyStubs) await runInDurableObject(stub as never, (o: CounterObject) => o.relay.settled());
  }
  for (const stub of copyStubs)
    expect(await runInDurableObject(stub as never, (o: CounterObject) => [o.relay.size, o.relay.nextSyncAt])).toEqual([0, Infinity]);
}

const overshootOf = (edges: ReturnType<typeof isolate>[]) => edges.reduce((sum, e) => sum + e.edge.precount.stats.overshoot, 0);

/** A home and its copies in three regions (request.cf from three colos), and the key's relayed call to each copy. */
async function placeThree(time: Time, limit: number) {
  const home = `relay-hot3/shard/${++n}-${Math.random()}`;
  const homeStub = counterStub(counters, home);
  await driveObject(homeStub as never, time.now);
  const limits: RelayCall["limits"] = [{ id: `rh3-${limit}`, algorithm: "fixed_window", limit, windowMs: 3_600_000, burst: limit }];
  const key = `hot3-${n}`;
  const copies = await Promise.all(
    (["enam", "weur", "apac"] as const).map(async (region) => {
      const name = inRegion(home, region);
      const stub = counterStub(counters, name);
      await driveObject(stub as never, time.now);
      const call: RelayCall = { kind: "relay", object: name, key, cost: 1, limits };
      return { name, stub, call, alarms: 0 };
    }),
  );
  /** Run each copy's alarm when its relay wants it, counting it (an alarm is a billed object request). */
  const alarmsIfDue = async () => {
    for (const c of copies)
      if (await runInDurableObject(c.stub as never, (o: CounterObject) => o.relay.nextSyncAt <= time.now())) {
        c.alarms += 1;
        await runDurableObjectAlarm(c.stub as never);
      }
  };
  const homeCalls = async () => (await homeStub.stats()).calls;
  const calls = async () => {
    let sum = await homeCalls();
    for (const c of copies) sum += (await c.stub.stats()).calls + c.alarms;
    return sum;
  };
  const charged = async () => limit - (await homeStub.decide([{ key, limits, cost: 0 }]))[0].decisions[0].remaining;
  const settle = (edges: ReturnType<typeof isolate>[]) =>
    untilQuiet(
      time,
      edges,
      alarmsIfDue,
      copies.map((c) => c.stub),
    );

  return { home, homeStub, copies, alarmsIfDue, homeCalls, calls, charged, settle };
}

/**
 * 64 isolates, isolate e in region e mod 3 (as request.cf spreads them), each sending one request every `gapMs`
 * (staggered) to its region's copy for `ms` of driven time; per driven second, the calls each object took (the
 * isolates' calls counted at the copies as they leave, the home's read from its own count) and the requests.
 */
async function driveThree(time: Time, p: Awaited<ReturnType<typeof placeThree>>, edges: ReturnType<typeof isolate>[], gapMs: number, ms: number, stepMs = 5) {
  let allowed = 0;
  let sent = 0;
  const slots = gapMs / stepMs;
  const seconds: { requests: number; home: number; calls: number }[] = [];
  let homeBefore = await p.homeCalls();
  let callsBefore = await p.calls();
  let requestsBefore = 0;
  for (let step = 0; step * stepMs < ms; step++) {
    const due = edges.map((edge, e) => ({ edge, e })).filter(({ e }) => (step + e) % slots === 0);
    sent += due.length;
    const answers = await Promise.all(due.map(({ edge, e }) => edge.go(p.copies[e % 3].call)));
    allowed += answers.filter(([v]) => v.allowed).length;
    await time.advance(stepMs, { stepMs });
    if (step % (200 / stepMs) === 0) await p.alarmsIfDue();
    if (((step + 1) * stepMs) % 1_000 === 0) {
      const home = await p.homeCalls();
      const calls = await p.calls();
      seconds.push({ requests: sent - requestsBefore, home: home - homeBefore, calls: calls - callsBefore });
      [homeBefore, callsBefore, requestsBefore] = [home, calls, sent];
    }
  }
  return { allowed, sent, seconds };
}

/** The most calls one object took in one driven second: the copies' (by when the isolates' calls left) and the home's. */
function busiest(log: ReturnType<typeof callLog>, seconds: { home: number }[]): number {
  return Math.max(log.max(), ...seconds.map((s) => s.home));
}

describe("a global key hot at its regions' copies, request.cf from three regions", () => {
  for (const [rate, gapMs, ms] of [
    [800, 80, 10_000],
    [3_200, 20, 5_000],
  ] as const)
    it(`64 isolates at ${rate.toLocaleString("en-US")} requests a second: at most 0.25 object calls a request from the first request (copies, their alarms and the home), none over 1,000 a second, every hit charged once, overshoot 0`, async () => {
      const time = drivenTime(OBJECT_EPOCH);
      try {
        const log = callLog();
        const p = await placeThree(time, 1_000_000_000);
        const edges = Array.from({ length: 64 }, () => isolate(time, log));
        const { allowed, sent, seconds } = await driveThree(time, p, edges, gapMs, ms);
        expect(allowed).toBe(sent);
        const calls = await p.calls();
        const perRequest = calls / allowed;
        // Once hot (from the third second on): the rate the key costs for as long as it stays hot.
        const hot = seconds.slice(2);
        const hotPerRequest = hot.reduce((s, x) => s + x.calls, 0) / hot.reduce((s, x) => s + x.requests, 0);
        console.log(
          `relay-hot 3 regions ${rate}/s: ${calls} calls (home ${await p.homeCalls()}, copy alarms ${p.copies.map((c) => c.alarms).join("/")}) for ${allowed} requests: ` +
            `${perRequest.toFixed(3)} a request, ${hotPerRequest.toFixed(3)} once hot; each second (requests/calls/home) ${seconds.map((x) => `${x.requests}/${x.calls}/${x.home}`).join(" ")}; busiest ${busiest(log, seconds)}/s`,
        );
        expect(edges.filter((e) => e.edge.precount.stats.local > 0).length).toBe(64);
        // The issue's bound is 0.25 a request; measured 0.103 and 0.046 (0.198 at 800 a second with a home's hot policy).
        expect(perRequest).toBeLessThanOrEqual(0.15);
        expect(hotPerRequest).toBeLessThanOrEqual(0.05);
        // The copies renew with the home a few times a second (measured 53 and 57).
        expect(await p.homeCalls()).toBeLessThanOrEqual(0.01 * allowed);
        expect(busiest(log, seconds)).toBeLessThan(1_000);
        await p.settle(edges);
        expect(await p.charged()).toBe(allowed);
        expect(overshootOf(edges)).toBe(0);
      } finally {
        time.stop();
      }
    }, 600_000);
});

describe("a global key hot at its region's copy", () => {
  it("64 isolates at ~800 requests a second: at most 0.25 object calls a request, none over 1,000 a second, every hit charged once", async () => {
    const time = drivenTime(OBJECT_EPOCH);
    try {
      const log = callLog();
      const p = await place(time, 1_000_000);
      const edges = Array.from({ length: 64 }, () => isolate(time, log));
      // A request every 80 ms from each of 64 isolates: 800 a second, about one object call each without leases.
      const allowed = await drive(time, p, edges, 80, 10_000);
      expect(allowed).toBe(64 * 125);
      expect(edges.filter((e) => e.edge.precount.stats.local > 0).length).toBeGreaterThan(32);
      // The isolates' calls reach only the copy; the copy's calls to the home are counted at the home.
      for (let s = 0; s < 10; s++) expect(log.in(OBJECT_EPOCH + s * 1_000)).toBeLessThan(1_000);
      const { home, copy } = await p.calls();
      const perRequest = (home + copy) / allowed;
      console.log(Array.from({ length: 10 }, (_, s) => log.in(OBJECT_EPOCH + s * 1_000)).join(" "));
      console.log(`relay-hot 64 isolates: home ${home} copy ${copy} requests ${allowed} per request ${perRequest.toFixed(3)}`);
      // The copy's calls to the home: renewals of its lease, a few a second whatever the isolates (measured 22; 272 on a
      // home's hot policy, whose 100 ms first period has every isolate sync, and the copy renew, ten times a second).
      expect(home).toBeLessThan(0.01 * allowed);
      // The issue's bound is 0.25; measured 0.081 (0.234 before the copy's own hot policy and renewal pace).
      expect(perRequest).toBeLessThanOrEqual(0.15);
      await untilQuiet(time, edges, p.alarmIfDue, [p.copyStub]);
      expect(await p.charged()).toBe(allowed);
      expect(overshootOf(edges)).toBe(0);
    } finally {
      time.stop();
    }
  }, 300_000);

  it("is exact with many callers: 64 isolates offered 3 × the limit allow at most the limit, and at least 98 % of it", async () => {
    const time = drivenTime(OBJECT_EPOCH);
    try {
      const log = callLog();
      const limit = 2_000;
      const p = await place(time, limit);
      const edges = Array.from({ length: 64 }, () => isolate(time, log));
      // 3,200 requests a second for 2 s: 6,400 offered.
      const allowed = await drive(time, p, edges, 20, 2_000);
      expect(edges.some((e) => e.edge.precount.stats.local > 0)).toBe(true);
      expect(allowed).toBeLessThanOrEqual(limit);
      await untilQuiet(time, edges, p.alarmIfDue, [p.copyStub]);
      expect(await p.charged()).toBe(allowed);
      expect(overshootOf(edges)).toBe(0);
      // What is left once every lease is back is allowed: no quota lost.
      const [after] = await edges[0].go(p.call);
      expect(allowed + (after.allowed ? 1 : 0)).toBeGreaterThanOrEqual(0.98 * limit);
    } finally {
      time.stop();
    }
  }, 300_000);

  it("lends an isolate no longer than the copy's own lease lasts (the expiries nest), and charges what it lent when it ends", async () => {
    const time = drivenTime(OBJECT_EPOCH);
    try {
      const p = await place(time, 1_000);
      // The copy's first hit asks the home: the hit and a lease of RELAY_LEASE_TTL_MS, counted from before it asked.
      expect((await p.copyStub.decide([p.call]))[0].allowed).toBe(true);
      await runInDurableObject(p.copyStub as never, (o: CounterObject) => o.relay.settled());
      const until = await runInDurableObject(p.copyStub as never, (o: CounterObject) => {
        const [held] = (o.relay as unknown as { held: Map<string, { until: number; budget: number }> }).held.values();
        expect(held.budget).toBeGreaterThan(1);
        return held.until;
      });
      expect(until).toBe(time.now() + RELAY_LEASE_TTL_MS);
      await time.advance(RELAY_LEASE_TTL_MS - 3_000, { stepMs: 100 });
      const sync = {
        kind: "absorb" as const,
        object: p.copy,
        key: p.call.key,
        limits: p.call.limits,
        cost: 0,
        lease: { holder: "isolate-1", want: 1, ttlMs: 5_000 },
      };
      const [lent] = await p.copyStub.decide([sync]);
      expect(lent.reserved).toBe(1);
      // Asked for 5 s with 3 s left of the copy's lease: lent for 3 s, and told so.
      expect(lent.leaseMs).toBe(until - time.now());
      // The isolate never reports: at the end of what it was lent, the copy counts it as spent, and the home charges it.
      await time.advance(3_000, { stepMs: 100 });
      for (let waited = 0; waited < 12_000; waited += 500) {
        await time.advance(500, { stepMs: 50 });
        await p.alarmIfDue();
        await runInDurableObject(p.copyStub as never, (o: CounterObject) => o.relay.settled());
      }
      expect(await p.charged()).toBe(2);
    } finally {
      time.stop();
    }
  }, 120_000);
});
