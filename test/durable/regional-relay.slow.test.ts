/**
 * Global limits decided in the request's region (docs/placement.md, "Global
 * limits decided in the region"): real home and regional objects in workerd
 * on one driven clock, three simulated regions. A region's first hit on a key
 * goes to the home, later ones do not; every hit allowed anywhere fits the
 * algorithm's exact model at its instant (overshoot 0) with three regions at
 * 3 × the limit; regions join and leave without losing quota; a home that
 * restarts with leases out lets through at most those leases, once.
 *
 * Breaks tried, each seen to fail here:
 * - R spending past its lease (`canSpend` in src/durable/counters/leases/relay-lease.ts with
 *   `<= held.budget + 2`): the oracle replay refused hits for every algorithm.
 * - R counting its lease's end from when the answer arrived, not from before
 *   it asked (`held.until = receivedAt + …` in takeLease): "stops spending a
 *   lease before its home charges it" failed (a hit allowed after the home's
 *   expiry).
 */
import { env } from "cloudflare:workers";
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/config.ts";
import type { CounterObject } from "../../src/durable/counters/counter-object.ts";
import type { CounterCall, CounterVerdict, RelayCall } from "../../src/stored/wire-calls.ts";
import { counterStub, inRegion, type Region } from "../../src/durable/counters/regions.ts";
import { RELAY_BYTES, RELAY_IDLE_MS, RELAY_LEASE_TTL_MS, RELAY_SYNC_MS } from "../../src/durable/counters/relay.ts";
import { ORACLES, refusedBy } from "../algorithms/oracles.ts";
import { driveObject, OBJECT_EPOCH } from "../support/driven-object.ts";
import { drivenTime } from "../support/driven-time.ts";

const counters = (env as unknown as Env).COUNTERS;
type Time = ReturnType<typeof drivenTime>;
type Stub = ReturnType<typeof counters.getByName>;
const REGIONS = ["weur", "enam", "apac"] as const;
let n = 0;

/** A home object and its copies in three regions, all on the driven clock. */
async function planet(time: Time) {
  const home = `relay-test/shard/${++n}-${Math.random()}`;
  const homeStub = counterStub(counters, home);
  const copies = new Map<Region, Stub>(REGIONS.map((r) => [r, counterStub(counters, inRegion(home, r))]));
  for (const stub of [homeStub, ...copies.values()]) await driveObject(stub as never, time.now);
  const relay = (region: Region, call: CounterCall): RelayCall => ({
    key: call.key,
    limits: call.limits,
    cost: call.cost,
    kind: "relay",
    object: inRegion(home, region),
  });
  /** One hit from `region`, as the edge sends it: to the region's copy. */
  const hit = async (region: Region, call: CounterCall): Promise<CounterVerdict> => (await (copies.get(region) as Stub).decide([relay(region, call)]))[0];
  /** Wait until no regional object has a call to the home unanswered. */
  const settle = async () => {
    for (let i = 0; i < 3; i++) {
      await time.settle();
      for (const stub of copies.values()) await runInDurableObject(stub as never, (o: CounterObject) => o.relay.settled());
    }
  };
  /**
   * Run the alarm of every regional object whose relay sync is due on the driven clock (alarms set on it never fire
   * alone). Syncs fall due on multiples of RELAY_SYNC_MS: looked for once the clock passed one.
   */
  let period = Math.floor(time.now() / RELAY_SYNC_MS);
  const syncsDue = async () => {
    if (Math.floor(time.now() / RELAY_SYNC_MS) === period) return;
    period = Math.floor(time.now() / RELAY_SYNC_MS);
    for (const stub of copies.values()) {
      const due = await runInDurableObject(stub as never, (o: CounterObject) => o.relay.nextSyncAt <= time.now());
      if (due) expect(await runDurableObjectAlarm(stub as never)).toBe(true);
    }
  };
  /** Move the clock and run the regional objects' sync alarms as they fall due, settling each step. */
  const advance = async (ms: number, stepMs = 100) => {
    for (let moved = 0; moved < ms; moved += stepMs) {
      await time.advance(Math.min(stepMs, ms - moved), { stepMs });
      await syncsDue();
      await settle();
    }
  };
  const stats = (stub: Stub) => stub.stats();
  const remaining = async (call: CounterCall) => (await homeStub.decide([{ ...call, cost: 0 }]))[0].decisions[0].remaining;
  return { home, homeStub, copies, hit, settle, advance, stats, remaining };
}

const callOf = (key: string, algorithm: string, limit: number, windowMs: number): CounterCall => ({
  key,
  cost: 1,
  limits: [{ id: `relay-${algorithm}-${limit}-${windowMs}`, algorithm: algorithm as never, limit, windowMs, burst: limit }],
});

/** The home's lease book, read inside the object (leases live in memory only). */
const leaseBook = (stub: Stub) =>
  runInDurableObject(stub as never, (o: CounterObject) => {
    const book = (o as unknown as { leases: { holders(id: string): number; total(id: string): number; counters: Map<string, unknown> } }).leases;
    return { holders: (id: string) => book.holders(id), total: (id: string) => book.total(id), keys: book.counters.size };
  });
const idOf = (call: CounterCall) => `${call.key}${call.limits.map((l) => `\u0001${l.id}`).join("")}`;

describe("a global key decided in its request's region", () => {
  it("sends a region's first hit to the home and decides the next ones in the region, 1 request a second", async () => {
    const time = drivenTime(OBJECT_EPOCH);
    try {
      const p = await planet(time);
      const call = callOf(`k-${n}`, "fixed_window", 100, 3_600_000);
      const weur = p.copies.get("weur") as Stub;
      const homeCalls: number[] = [];
      for (let i = 0; i < 8; i++) {
        const before = (await p.stats(p.homeStub)).calls;
        expect((await p.hit("weur", call)).allowed).toBe(true);
        // Calls the home got while this request was decided (background syncs run only as the clock moves).
        homeCalls.push((await p.stats(p.homeStub)).calls - before);
        await p.advance(1_000);
      }
      // The first asks the home (the hit and a lease in one call); from the second on, no hit does: the fifth, finding its
      // lease's last quarter spent, renews it in the background (reporting its hits), so the next ones decide in the region.
      expect(homeCalls).toEqual([1, 0, 0, 0, 1, 0, 0, 0]);
      const { relay } = await p.stats(weur);
      expect(relay).toMatchObject({ local: 7, asked: 1, overshoot: 0 });
      // Background syncs: about one a second while the key has hits to report, batched, not one per hit.
      expect(relay.homeCalls).toBeLessThanOrEqual(1 + 8);
      // A region reports its hits when it renews or when the key goes idle, not every sync period (docs/placement.md,
      // "When a region's hits are charged"): a second on, the home has charged the first hit and the four the renewal
      // reported; the three since are still the region's, inside the lease of 4 the home holds set aside for it.
      // Break tried: no key ever idle (`idle` in src/durable/counters/leases/relay-lease.ts returning false): the home
      // still said 95 left after the idle time, not 92.
      await p.advance(RELAY_SYNC_MS);
      expect(await p.remaining(call)).toBe(100 - 5);
      expect((await leaseBook(p.homeStub)).total(idOf(call))).toBe(4);
      // Idle keys report their hits and give their lease back: after RELAY_IDLE_MS and a sync the home has charged all 8
      // and holds nothing for the region.
      await p.advance(RELAY_IDLE_MS + 2 * RELAY_SYNC_MS, 500);
      expect(await p.remaining(call)).toBe(100 - 8);
      expect((await leaseBook(p.homeStub)).total(idOf(call))).toBe(0);
      expect((await p.homeStub.decide([{ ...call, cost: 92 }]))[0].allowed).toBe(true);
    } finally {
      time.stop();
    }
  });
});

/** Each step of 100 ms, region i sends a hit when (step + i) % 5 < 3: 6 a second each, 18 in all. */
const sends = (step: number, i: number) => (step + i) % 5 < 3;

describe("a relay call and its object", () => {
  // A relay call decides through a lease only in a region's copy; one reaching a home object (no region in its
  // name) is decided there, as a plain call, and a copy refuses a call naming another home.
  it("decides a relay call at an object that is no region's copy, and refuses one naming another home", async () => {
    const time = drivenTime(OBJECT_EPOCH);
    try {
      const p = await planet(time);
      const call = callOf(`own-${n}`, "fixed_window", 10, 3_600_000);
      const [atHome] = await p.homeStub.decide([{ ...call, kind: "relay", object: p.home }]);
      expect(atHome.allowed).toBe(true);
      expect((await p.stats(p.homeStub)).relay.asked).toBe(0);
      expect(await p.remaining(call)).toBe(9);
      expect((await p.hit("weur", call)).allowed).toBe(true);
      const weur = p.copies.get("weur") as Stub;
      const other = { ...call, kind: "relay" as const, object: inRegion(`${p.home}-other`, "weur") };
      await runInDurableObject(weur as never, (o: CounterObject) => expect(() => o.relay.decide(other)).toThrow(/reached the copy/));
    } finally {
      time.stop();
    }
  });
});

describe("what a region says is left", () => {
  // Found by the README's app under wrangler dev (a placeholder location, so relayed): a hit the home decides after
  // the region spent its lease was answered as if the region's unreported hits were still free. Break tried: ask()
  // returning the home's answer as it came: remaining went 2, 1, 1 before the 429.
  it("counts the region's own spent hits in the remaining of a hit it asked the home for", async () => {
    const time = drivenTime(OBJECT_EPOCH);
    try {
      const p = await planet(time);
      const call = callOf(`left-${n}`, "fixed_window", 3, 3_600_000);
      const seen: [boolean, number][] = [];
      for (let i = 0; i < 4; i++) {
        const v = await p.hit("weur", call);
        seen.push([v.allowed, v.decisions[0].remaining]);
      }
      expect(seen).toEqual([
        [true, 2],
        [true, 1],
        [true, 0],
        [false, 0],
      ]);
    } finally {
      time.stop();
    }
  });
});

describe("a regional lease's size", () => {
  // Docs, "Lease size": a region asks for at most a quarter of the key's smallest limit, so with a small limit one
  // region's lease leaves the others most of it. Break tried: no cap (`Math.min(cap, …)` left out in syncCall):
  // weur held 4 of 8.
  it("leases a region at most a quarter of a small limit, and the other regions get the rest", async () => {
    const time = drivenTime(OBJECT_EPOCH);
    try {
      const p = await planet(time);
      const call = callOf(`size-${n}`, "fixed_window", 8, 3_600_000);
      expect((await p.hit("weur", call)).allowed).toBe(true);
      expect((await leaseBook(p.homeStub)).total(idOf(call))).toBe(2);
      const enam: boolean[] = [];
      for (let i = 0; i < 7; i++) enam.push((await p.hit("enam", call)).allowed);
      // 8 - weur's hit - weur's lease of 2: enam gets 5.
      expect(enam.filter(Boolean)).toHaveLength(5);
    } finally {
      time.stop();
    }
  });
});

describe("three regions at 3 × the limit", () => {
  // Docs, "The bound": a region allows only hits its lease covers, and the home counts every lease as taken, so every
  // hit allowed anywhere fits the exact model (test/algorithms/oracles.ts) at the instant it was allowed. A 10 s window
  // of 60 (6 a second) against 18 a second from three regions for 15 s: quota refills while the regions spend it.
  const algorithms = ["fixed_window", "sliding_window_log", "sliding_window_counter", "token_bucket", "leaky_bucket", "gcra"] as const;
  for (const algorithm of algorithms) {
    it(`${algorithm}: every hit allowed in any region fits the exact model at its instant`, async () => {
      const time = drivenTime(OBJECT_EPOCH);
      try {
        const p = await planet(time);
        const spec = { limit: 60, windowMs: 10_000, burst: 60 };
        const call = callOf(`alg-${algorithm}-${n}`, algorithm, spec.limit, spec.windowMs);
        const allowedAt: number[] = [];
        const perRegion = REGIONS.map(() => 0);
        for (let step = 0; step < 150; step++) {
          const from = REGIONS.filter((_, i) => sends(step, i));
          // The clock stands still while a step is decided: every hit of it was allowed now.
          const verdicts = await Promise.all(from.map((r) => p.hit(r, call)));
          verdicts.forEach((v, j) => {
            if (!v.allowed) return;
            allowedAt.push(time.now());
            perRegion[REGIONS.indexOf(from[j] as (typeof REGIONS)[number])] += 1;
          });
          await p.advance(100);
        }
        expect(refusedBy(ORACLES[algorithm](spec), allowedAt)).toEqual([]);
        // Every region got some, refills were used, and regions decided locally.
        expect(perRegion.every((k) => k > 0)).toBe(true);
        expect(allowedAt.length).toBeGreaterThan(spec.limit);
        let local = 0;
        for (const stub of p.copies.values()) {
          const { relay } = await p.stats(stub);
          expect(relay.overshoot).toBe(0);
          local += relay.local;
        }
        expect(local).toBeGreaterThan(0);
      } finally {
        time.stop();
      }
    });
  }

  // False denies: quota a region holds and does not spend is refused to the others. With all three regions over the
  // limit, every lease is spent, so each full fixed window gives (nearly) the whole limit.
  it("false denies stay within 2 % of the limit in every full fixed window", async () => {
    const time = drivenTime(OBJECT_EPOCH);
    try {
      const p = await planet(time);
      const spec = { limit: 600, windowMs: 10_000 };
      const call = callOf(`fd-${n}`, "fixed_window", spec.limit, spec.windowMs);
      // Start at a window's start, so the windows below are whole.
      time.jump(spec.windowMs - (time.now() % spec.windowMs));
      const perWindow = new Map<number, number>();
      for (let step = 0; step < 300; step++) {
        // 60 a second from each region: 3 × the limit over each window.
        const verdicts = await Promise.all(REGIONS.flatMap((r) => Array.from({ length: 6 }, () => p.hit(r, call))));
        const window = Math.floor(time.now() / spec.windowMs);
        perWindow.set(window, (perWindow.get(window) ?? 0) + verdicts.filter((v) => v.allowed).length);
        await p.advance(100);
      }
      const counts = [...perWindow.values()];
      expect(counts).toHaveLength(3);
      for (const allowed of counts) {
        expect(allowed).toBeLessThanOrEqual(spec.limit);
        expect(allowed).toBeGreaterThanOrEqual(spec.limit * 0.98);
      }
    } finally {
      time.stop();
    }
  });
});

describe("regions joining and leaving", () => {
  // Docs, "Regions joining and leaving": a region joins with no lease and gets a fair share of what is free; a region
  // that goes quiet gives its lease back at its first sync RELAY_IDLE_MS after its last hit. Below the limit every hit
  // is allowed, and once every region is quiet the home holds nothing for them: no quota lost.
  it("one region, then three, then two: every hit allowed below the limit, every lease back at the end", async () => {
    const time = drivenTime(OBJECT_EPOCH);
    try {
      const p = await planet(time);
      const limit = 200;
      const call = callOf(`join-${n}`, "fixed_window", limit, 3_600_000);
      let allowed = 0;
      const phase = async (regions: readonly Region[], steps: number) => {
        for (let step = 0; step < steps; step++) {
          for (const v of await Promise.all(regions.map((r) => p.hit(r, call)))) if (v.allowed) allowed += 1;
          await p.advance(200);
        }
      };
      await phase(["weur"], 20);
      expect((await leaseBook(p.homeStub)).holders(idOf(call))).toBe(1);
      await phase(REGIONS, 20);
      expect((await leaseBook(p.homeStub)).holders(idOf(call))).toBe(3);
      // weur leaves; after RELAY_IDLE_MS and a sync its lease is back, while the two others still hold theirs.
      await phase(["enam", "apac"], (RELAY_IDLE_MS + 2 * RELAY_SYNC_MS) / 200);
      expect((await leaseBook(p.homeStub)).holders(idOf(call))).toBe(2);
      const sent = 20 + 3 * 20 + 2 * ((RELAY_IDLE_MS + 2 * RELAY_SYNC_MS) / 200);
      expect(allowed).toBe(sent);
      await p.advance(RELAY_IDLE_MS + 2 * RELAY_SYNC_MS, 500);
      expect((await leaseBook(p.homeStub)).holders(idOf(call))).toBe(0);
      expect(await p.remaining(call)).toBe(limit - sent);
    } finally {
      time.stop();
    }
  });
});

describe("a home object restarting with regional leases out", () => {
  // Docs, "Limits of the guarantee": the home forgets its leases; the regions may still spend what they hold until it
  // ends as they count it: at most the leases outstanding at the restart, once. Strict, so the restart loses no hit.
  // Break tried: takeLease keeping the larger of the old budget and the new lease (`Math.max(held.budget, …)`), so a
  // region's lease outlives the home's word: allowed went past limit + leases out.
  it("lets through at most the leases outstanding at the restart, once", async () => {
    const time = drivenTime(OBJECT_EPOCH);
    try {
      const p = await planet(time);
      const limit = 40;
      const base = callOf(`restart-${n}`, "fixed_window", limit, 3_600_000);
      const call: CounterCall = { ...base, limits: [{ ...base.limits[0], strict: true }] };
      let allowed = 0;
      const wave = async (steps: number) => {
        for (let step = 0; step < steps; step++) {
          for (const v of await Promise.all(REGIONS.map((r) => p.hit(r, call)))) if (v.allowed) allowed += 1;
          await p.advance(100);
        }
      };
      await wave(5);
      const before = await runInDurableObject(p.homeStub as never, (o: CounterObject) =>
        (o as unknown as { leases: { total(id: string): number } }).leases.total(idOf(call)),
      );
      expect(before).toBeGreaterThan(0);
      await evictDurableObject(p.homeStub as never);
      await driveObject(p.homeStub as never, time.now);
      await wave(40);
      await p.advance(2 * RELAY_LEASE_TTL_MS, 500);
      await wave(10);
      expect(allowed).toBeGreaterThanOrEqual(limit);
      expect(allowed).toBeLessThanOrEqual(limit + before);
      let overshoot = 0;
      for (const stub of p.copies.values()) overshoot += (await p.stats(stub)).relay.overshoot;
      expect(overshoot).toBeLessThanOrEqual(before);
      expect(await p.remaining(call)).toBe(0);
    } finally {
      time.stop();
    }
  });
});

/** Calls from `stub` to its home take `rttMs` on the driven clock: its `env.COUNTERS` wrapped, as the bench does. */
async function slowHome(stub: Stub, time: Time, rttMs: number) {
  await runInDurableObject(stub as never, (o: CounterObject) => {
    const real = counters;
    const slow = {
      getByName: (name: string, options?: DurableObjectNamespaceGetDurableObjectOptions) => {
        const target = real.getByName(name, options);
        return {
          decideText: async (text: string, version?: number) => {
            const answers = await target.decideText(text, version);
            time.jump(rttMs);
            return answers;
          },
        };
      },
    };
    o.homeCounters = slow as never;
  });
}

describe("a regional lease's end", () => {
  // Docs, "The bound": the region counts its lease from before it asked, the home from when it got the call, so the
  // region stops spending first. Here the home charges the lease whole at its end, the last instant of a fixed
  // window; a region still spending it in the next window would be uncounted there (the expiry charged the old one).
  it("stops spending a lease before its home charges it", async () => {
    const time = drivenTime(OBJECT_EPOCH);
    try {
      const p = await planet(time);
      const windowMs = 60_000;
      const limit = 10;
      const call = callOf(`end-${n}`, "fixed_window", limit, windowMs);
      const weur = p.copies.get("weur") as Stub;
      await slowHome(weur, time, 30);
      const boundary = (Math.floor((time.now() + RELAY_LEASE_TTL_MS) / windowMs) + 2) * windowMs;
      time.jump(boundary - 1 - RELAY_LEASE_TTL_MS - time.now());
      const allowedAt: number[] = [];
      const note = (v: CounterVerdict) => v.allowed && allowedAt.push(time.now());
      note(await p.hit("weur", call)); // a lease of 4, until boundary - 1 as weur counts it
      time.jump(boundary - 1 - time.now());
      note(await p.hit("enam", call)); // the home's lease for weur ends now: charged whole, in the old window
      time.jump(1);
      const weurAfter: boolean[] = [];
      for (let i = 0; i < 3; i++) {
        const v = await p.hit("weur", call);
        weurAfter.push(v.allowed);
        note(v);
      }
      for (let i = 0; i < 12; i++) note(await p.hit("enam", call));
      expect(refusedBy(ORACLES.fixed_window({ limit, windowMs, burst: limit }), allowedAt)).toEqual([]);
      // The scenario ran: weur's hits in the new window were allowed (through the home, its lease over).
      expect(weurAfter).toEqual([true, true, true]);
      expect(allowedAt.filter((t) => t >= boundary).length).toBeGreaterThan(limit / 2);
    } finally {
      time.stop();
    }
  });
});

describe("a regional object's memory", () => {
  // Docs, "What it costs": a regional object keeps at most about RELAY_BYTES of global keys' state, dropping idle keys
  // first and giving their leases back, so a key scan leaves neither it nor the home holding a lease per key scanned.
  // Break tried: dropping a key without giving its lease back (the `giveBack.push` in relay.ts left out): the home
  // held a lease for every key scanned.
  it("stays within RELAY_BYTES under a key scan, and the home holds leases only for the keys it keeps", async () => {
    const time = drivenTime(OBJECT_EPOCH);
    try {
      const p = await planet(time);
      const weur = p.copies.get("weur") as Stub;
      const scanned = 4_000;
      const batch = 200;
      let largest = 0;
      for (let at = 0; at < scanned; at += batch) {
        const calls = Array.from({ length: batch }, (_, i) => {
          const c = callOf(`scan-${n}-${at + i}-${"x".repeat(20)}`, "fixed_window", 100, 3_600_000);
          return { key: c.key, limits: c.limits, cost: 1, kind: "relay" as const, object: inRegion(p.home, "weur") };
        });
        expect((await weur.decide(calls)).every((v) => v.allowed)).toBe(true);
        await p.settle();
        largest = Math.max(largest, (await p.stats(weur)).relayBytes);
      }
      // A batch in flight is kept whole until answered (its keys have hits on their way).
      expect(largest).toBeLessThanOrEqual(RELAY_BYTES + batch * 600);
      await p.advance(RELAY_SYNC_MS);
      const kept = await runInDurableObject(weur as never, (o: CounterObject) => o.relay.size);
      expect(kept).toBeLessThan(scanned - 1_000);
      expect((await leaseBook(p.homeStub)).keys).toBeLessThanOrEqual(kept);
    } finally {
      time.stop();
    }
  });
});

describe("what relaying costs in storage", () => {
  // Docs, "What it costs": leases live in memory and a region's hits reach the home batched (a renewal's worth, or once
  // the key is idle), so the rows written for the requests are no more than when every request goes to the home. A
  // regional copy is a counter object too: once, when created, it makes its tables (the rows a new object writes,
  // measured here on each copy, the same as the direct object's), which the requests do not repeat.
  // Break tried: reporting every hit allowed from a lease at once (`void this.sync(held, now)` after a local decision
  // in relay.ts) instead of batched: rows rose above the direct path's plus the copies' tables.
  it("writes no more rows per request than strong decisions at the home, beside each copy's tables", async () => {
    const time = drivenTime(OBJECT_EPOCH);
    try {
      const relayed = await planet(time);
      const direct = counterStub(counters, `relay-test/direct/${++n}-${Math.random()}`);
      await driveObject(direct as never, time.now);
      // What a new counter object writes once, before any request: its tables.
      const tablesDirect = (await direct.stats()).rowsWritten;
      const tablesPerCopy = await Promise.all([...relayed.copies.values()].map(async (stub) => (await relayed.stats(stub)).rowsWritten));
      for (const tables of tablesPerCopy) expect(tables).toBe(tablesDirect);
      const keys = Array.from({ length: 20 }, (_, i) => callOf(`rows-${n}-${i}`, "fixed_window", 1_000, 3_600_000));
      for (let second = 0; second < 30; second++) {
        for (const call of keys) {
          await direct.decide([call]);
          await relayed.hit("weur", call);
        }
        await relayed.advance(1_000, 250);
      }
      // The last hits are reported when their keys go idle (the alarm that gives their leases back).
      await relayed.advance(RELAY_IDLE_MS + 2 * RELAY_SYNC_MS, 250);
      const rowsDirect = (await direct.stats()).rowsWritten;
      let rowsRelayed = (await relayed.stats(relayed.homeStub)).rowsWritten;
      for (const stub of relayed.copies.values()) rowsRelayed += (await relayed.stats(stub)).rowsWritten;
      expect(rowsDirect).toBeGreaterThan(tablesDirect);
      // The home and the direct object each made their tables too: only the copies' are beside the bound.
      expect(rowsRelayed - tablesPerCopy.reduce((sum, tables) => sum + tables, 0)).toBeLessThanOrEqual(rowsDirect);
      for (const call of keys) expect(await relayed.remaining(call)).toBe(1_000 - 30);
    } finally {
      time.stop();
    }
  });
});
