/**
 * The relay's background work and its failures (docs/reliability.md, "The
 * relay's failures"; docs/placement.md, "What it costs"): a real home and a
 * real regional copy in workerd on one driven clock.
 *
 * - Background syncs run on the copy's alarm: it holds no timer between
 *   them, and once its keys are idle and their leases given back it holds
 *   no alarm either, so it may hibernate.
 * - A home that throws: the hits that needed it fail (the edge's failure
 *   mode decides them), the key with hits owed is kept, and every hit
 *   allowed from the lease reaches the home once it is back.
 * - A home that hangs: a hit that needs it fails after RELAY_HOME_TIMEOUT_MS,
 *   not later; no sync stays stuck, and the hits owed reach the home once it
 *   answers again.
 *
 * Breaks tried, each seen to fail here:
 * - the relay's `wake` on a setTimeout again (the schedule callback ignored
 *   in relay.ts): the alarm test (a timer pending, no alarm set);
 * - `failed` in relay.ts not putting the hits back (`held.inflight -= sent;
 *   held.syncing = false` only): both failure tests (the home held fewer
 *   hits than were allowed);
 * - no deadline on calls to the home (`withDeadline` returning its answer
 *   as is in relay-link.ts): the hang test (the hit never answered).
 */
import { env } from "cloudflare:workers";
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import type { Env } from "../../src/config.ts";
import type { CounterObject } from "../../src/durable/counters/counter-object.ts";
import type { CounterCall, CounterVerdict } from "../../src/stored/wire-calls.ts";
import { counterStub, inRegion } from "../../src/durable/counters/regions.ts";
import { RELAY_HOME_TIMEOUT_MS, RELAY_IDLE_MS, RELAY_SYNC_MS } from "../../src/durable/counters/relay.ts";
import { driveObject, OBJECT_EPOCH } from "../support/driven-object.ts";
import { drivenTime } from "../support/driven-time.ts";
import { hangingCounters, throwingCounters } from "../support/failing.ts";

const counters = (env as unknown as Env).COUNTERS;
type HomeState = "up" | "throwing" | "hanging";
let n = 0;

/** What `pair` needs of a test's clock: drivenTime's, or a plain one with real timers. */
interface Clock {
  now(): number;
  advance(ms: number, options?: { stepMs?: number }): Promise<void>;
}

/** A home and its weur copy on the driven clock; the copy's calls to its home go through `state`. */
async function pair(time: Clock) {
  const home = `relay-fail/shard/${++n}-${Math.random()}`;
  const homeStub = counterStub(counters, home);
  const copy = counterStub(counters, inRegion(home, "weur"));
  await driveObject(homeStub as never, time.now);
  await driveObject(copy as never, time.now);
  const state: { home: HomeState } = { home: "up" };
  await runInDurableObject(copy as never, (o: CounterObject) => {
    o.homeCounters = {
      getByName: (name: string, options?: DurableObjectNamespaceGetDurableObjectOptions) => ({
        // Real objects that fail (test/support/failing-objects.mjs), reached over real RPC, as a home fails.
        decideText: (text: string, version?: number) =>
          (state.home === "throwing" ? throwingCounters : state.home === "hanging" ? hangingCounters : counters)
            .getByName(name, options)
            .decideText(text, version),
      }),
    };
  });
  const call: CounterCall = {
    key: `k-${n}`,
    cost: 1,
    limits: [{ id: "fw-200", algorithm: "fixed_window", limit: 200, windowMs: 3_600_000, burst: 200 }],
  };
  let allowed = 0;
  /** One relayed hit: its verdict, or the error the copy answered with. */
  const hit = async (): Promise<CounterVerdict | Error> => {
    try {
      const [verdict] = await copy.decide([{ ...call, kind: "relay", object: inRegion(home, "weur") }]);
      if (verdict.allowed) allowed += 1;
      return verdict;
    } catch (error) {
      return error as Error;
    }
  };
  const inCopy = <T>(body: (o: CounterObject) => T) => runInDurableObject(copy as never, body);
  /** Move the clock `ms` in steps, running the copy's alarm whenever its relay's sync is due. */
  const advance = async (ms: number, stepMs = 100) => {
    for (let moved = 0; moved < ms; moved += stepMs) {
      await time.advance(stepMs, { stepMs });
      if (await inCopy((o) => o.relay.nextSyncAt <= time.now())) expect(await runDurableObjectAlarm(copy as never)).toBe(true);
      await inCopy((o) => o.relay.settled());
    }
  };
  const charged = async () => 200 - (await homeStub.decide([{ ...call, cost: 0 }]))[0].decisions[0].remaining;
  return { copy, state, hit, inCopy, advance, charged, allowed: () => allowed };
}

describe("a regional object's background syncs", () => {
  it("run on its alarm: no timer between them, and no alarm once its keys are idle", async () => {
    const time = drivenTime(OBJECT_EPOCH);
    try {
      const p = await pair(time);
      for (let i = 0; i < 5; i++) expect(await p.hit()).toMatchObject({ allowed: true });
      await time.settle();
      const due = await p.inCopy((o) => o.relay.nextSyncAt);
      expect(due).toBeGreaterThan(time.now());
      // Not every second: when the key goes idle, on the RELAY_SYNC_MS grid.
      expect(due).toBeGreaterThanOrEqual(time.now() + RELAY_IDLE_MS);
      expect(due).toBeLessThanOrEqual(time.now() + RELAY_IDLE_MS + RELAY_SYNC_MS);
      // The alarm is set for the sync; nothing waits on a timer.
      expect(await p.inCopy((o) => (o as unknown as { ctx: DurableObjectState }).ctx.storage.getAlarm())).toBe(due);
      expect(vi.getTimerCount()).toBe(0);
      // Idle: the lease goes back at a sync, the key is dropped at the next, and then nothing is scheduled.
      await p.advance(RELAY_IDLE_MS + 3 * RELAY_SYNC_MS);
      expect(await p.inCopy((o) => [o.relay.size, o.relay.nextSyncAt])).toEqual([0, Infinity]);
      expect(await p.inCopy((o) => (o as unknown as { ctx: DurableObjectState }).ctx.storage.getAlarm())).toBeNull();
      expect(vi.getTimerCount()).toBe(0);
      expect(await p.charged()).toBe(5);
    } finally {
      time.stop();
    }
  });
});

describe("a home that fails behind a relay", () => {
  it("throws: hits needing it fail, the key owing hits is kept, and its hits reach the home once it is back", async () => {
    const time = drivenTime(OBJECT_EPOCH);
    try {
      const p = await pair(time);
      for (let i = 0; i < 3; i++) await p.hit();
      p.state.home = "throwing";
      // The lease covers some hits; past it, the copy answers with the home's failure (the edge's failure mode decides).
      const answers = [];
      for (let i = 0; i < 12; i++) answers.push(await p.hit());
      expect(answers.some((a) => a instanceof Error)).toBe(true);
      expect(answers.some((a) => !(a instanceof Error) && a.allowed)).toBe(true);
      // Every sync fails for longer than a key takes to go idle: the key owes hits, so it is kept.
      await p.advance(RELAY_IDLE_MS + 2 * RELAY_SYNC_MS);
      expect(await p.inCopy((o) => o.relay.size)).toBe(1);
      p.state.home = "up";
      await p.advance(2 * RELAY_SYNC_MS);
      expect(await p.charged()).toBe(p.allowed());
    } finally {
      time.stop();
    }
  });

  // Real timers here: the deadline is the copy's own timer, and a fake one fired from the test would settle the copy's
  // promise from outside it. The clock stays driven (the objects') and moves only when the test moves it.
  it(`hangs: a hit needing it fails at the deadline (${RELAY_HOME_TIMEOUT_MS} ms), and the hits owed reach the home once it answers`, async () => {
    const clock = { at: OBJECT_EPOCH };
    const p = await pair({ now: () => clock.at, advance: async (ms: number) => void (clock.at += ms) });
    for (let i = 0; i < 3; i++) await p.hit();
    p.state.home = "hanging";
    // Spend what the lease has left, then one hit that needs the home: answered with an error at the deadline.
    const spare = await p.inCopy((o) => {
      const [held] = (o.relay as unknown as { held: Map<string, { budget: number; pending: number; inflight: number }> }).held.values();
      return held.budget - held.pending - held.inflight;
    });
    expect(spare).toBeGreaterThan(0);
    for (let i = 0; i < spare; i++) expect(await p.hit()).toMatchObject({ allowed: true });
    const answer = await p.hit();
    expect(answer).toBeInstanceOf(Error);
    expect(String(answer)).toContain(`did not answer within ${RELAY_HOME_TIMEOUT_MS} ms`);
    // A sync meanwhile hangs and times out too; none stays stuck: once the home answers, everything owed reaches it.
    await p.advance(RELAY_SYNC_MS, RELAY_SYNC_MS);
    expect(await p.inCopy((o) => o.relay.settled().then(() => o.relay.size))).toBe(1);
    p.state.home = "up";
    await p.advance(RELAY_IDLE_MS + 2 * RELAY_SYNC_MS, RELAY_SYNC_MS);
    expect(await p.charged()).toBe(p.allowed());
    expect(p.allowed()).toBe(3 + spare);
  });
});
