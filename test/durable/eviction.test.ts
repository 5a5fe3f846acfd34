// Nothing lost to an idle eviction (docs/reliability.md, "Durability" and "Short windows"): every window of 5 s or
// more is written by the object's alarm, QUIET_WRITE_MS after its last call at the latest, before the runtime's
// ~10 s idle eviction can discard its memory. Each eviction here is real (evictAllDurableObjects discards the
// instance, as the runtime does); time is the objects' driven clock, never the machine's.
// Breaks tried: DURABLE_WINDOW_MS back at 60_000 (every stored-window case fails: the third request is allowed);
// the quiet write dropped from `schedule` (the persist_ms 60 s case fails: the alarm is set past the eviction);
// every alarm checkpointing (the busy case fails: a long persist_ms would write every QUIET_WRITE_MS under traffic).
import { env } from "cloudflare:workers";
import { evictAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/config.ts";
import { type CounterObject, QUIET_WRITE_MS } from "../../src/durable/counters/counter-object.ts";
import type { LimitCall } from "../../src/stored/wire-calls.ts";
import { DURABLE_WINDOW_MS } from "../../src/rules/keys.ts";
import { driveObject, OBJECT_EPOCH } from "../support/driven-object.ts";
import { hit } from "../support/limits.ts";

const counters = (env as unknown as Env).COUNTERS;
/** The platform evicts an object that has had no request for about this long (docs/reliability.md, "Durability"). */
const EVICTION_IDLE_MS = 10_000;
let unique = 0;
const fresh = (name: string) => `eviction-${name}-${Date.now()}-${unique++}`;

const ALGORITHMS = ["fixed_window", "sliding_window_log", "sliding_window_counter", "token_bucket", "leaky_bucket", "gcra"] as const;

const limitOf = (algorithm: LimitCall["algorithm"], windowMs: number, limit: number, extra: Partial<LimitCall> = {}): LimitCall => ({
  id: `${algorithm}-${windowMs}`,
  algorithm,
  limit,
  windowMs,
  burst: limit,
  ...extra,
});

/**
 * One object on a driven clock that the test moves; `idle()` does what the platform does to an object with no
 * call: its alarm runs when it was set for (it must be set before the eviction could come), then the object is
 * evicted, and the next call finds a new instance, put back on the clock.
 */
function drivenObject(name: string) {
  const clock = { now: OBJECT_EPOCH };
  const stub = () => counters.getByName(name);
  let lastCallAt = clock.now;
  return {
    clock,
    async start() {
      await driveObject(stub(), () => clock.now);
    },
    async decide(limit: LimitCall) {
      lastCallAt = clock.now;
      const [verdict] = await stub().decide([hit("k", limit)]);
      return verdict.allowed;
    },
    async peek(limit: LimitCall) {
      return (await stub().peek(hit("k", limit, 0))).decisions[0];
    },
    /** The alarm, if set before the eviction, runs at its time; then the object is evicted. Returns whether an alarm ran. */
    async idle(): Promise<boolean> {
      const alarmAt = await runInDurableObject(stub(), (_o: CounterObject, state) => state.storage.getAlarm());
      const ran = alarmAt !== null && alarmAt < lastCallAt + EVICTION_IDLE_MS;
      if (ran) {
        const resumeAt = clock.now;
        clock.now = Math.max(clock.now, alarmAt);
        expect(await runDurableObjectAlarm(stub())).toBe(true);
        clock.now = resumeAt;
      }
      await evictAllDurableObjects();
      await driveObject(stub(), () => clock.now);
      return ran;
    },
  };
}

describe("an idle eviction", () => {
  it("keeps windows of 5 s or more in storage, shorter ones in memory", () => {
    expect(DURABLE_WINDOW_MS).toBe(5_000);
    expect(QUIET_WRITE_MS).toBeLessThan(EVICTION_IDLE_MS);
  });

  for (const persistMs of [undefined, 60_000]) {
    it(`loses nothing of a 30 s sliding log of 2 across 12 s idle gaps (persist_ms ${persistMs ?? "default"})`, async () => {
      const object = drivenObject(fresh(`log-${persistMs}`));
      await object.start();
      const limit = limitOf("sliding_window_log", 30_000, 2, persistMs === undefined ? {} : { persistMs });
      // Each hit is written before the eviction: at once (the first change after a quiet spell), or by the alarm
      // set before the eviction could come (a change waiting for its checkpoint).
      expect(await object.decide(limit)).toBe(true);
      await object.idle();
      object.clock.now += 12_000;
      expect(await object.decide(limit)).toBe(true);
      await object.idle();
      object.clock.now += 12_000;
      expect(await object.decide(limit)).toBe(false);
    });
  }

  for (const algorithm of ALGORITHMS) {
    for (const windowMs of [5_000, 10_000, 30_000]) {
      it(`leaves a ${algorithm} window of ${windowMs / 1000} s as it was`, async () => {
        const object = drivenObject(fresh(`${algorithm}-${windowMs}`));
        await object.start();
        const limit = limitOf(algorithm, windowMs, 3);
        for (let i = 0; i < 3; i++) expect(await object.decide(limit)).toBe(true);
        const before = await object.peek(limit);
        expect(before.remaining).toBe(0);
        expect(await object.idle()).toBe(true);
        expect(await object.peek(limit)).toEqual(before);
        expect(await object.decide(limit)).toBe(false);
      });
    }
  }

  it("keeps a long persist_ms's few writes while calls go on: a quiet write overtaken by calls writes nothing", async () => {
    const name = fresh("busy");
    const object = drivenObject(name);
    await object.start();
    const limit = limitOf("fixed_window", 3_600_000, 100, { persistMs: 60_000 });
    const stored = async () => (await counters.getByName(name).stats()).stored;
    const alarm = () => runInDurableObject(counters.getByName(name), (_o: CounterObject, state) => state.storage.getAlarm());
    for (const at of [0, 2_000, 4_000]) {
      object.clock.now = OBJECT_EPOCH + at;
      expect(await object.decide(limit)).toBe(true);
    }
    // Set for QUIET_WRITE_MS after the first call; calls came since, so it only moves on to QUIET_WRITE_MS after the last.
    expect(await alarm()).toBe(OBJECT_EPOCH + QUIET_WRITE_MS);
    object.clock.now = OBJECT_EPOCH + QUIET_WRITE_MS;
    expect(await runDurableObjectAlarm(counters.getByName(name))).toBe(true);
    expect(await stored()).toBe(0);
    expect(await alarm()).toBe(OBJECT_EPOCH + 4_000 + QUIET_WRITE_MS);
    object.clock.now = OBJECT_EPOCH + 4_000 + QUIET_WRITE_MS;
    expect(await runDurableObjectAlarm(counters.getByName(name))).toBe(true);
    expect(await stored()).toBe(1);
  });

  it("forgets a window under 5 s, which refills within the time an evicted object takes to come back", async () => {
    const object = drivenObject(fresh("short"));
    await object.start();
    const limit = limitOf("fixed_window", 4_000, 2);
    expect(await object.decide(limit)).toBe(true);
    expect(await object.decide(limit)).toBe(true);
    expect(await object.decide(limit)).toBe(false);
    // Nothing to write: no alarm runs before the eviction, and the window comes back fresh.
    expect(await object.idle()).toBe(false);
    expect((await object.peek(limit)).remaining).toBe(2);
  });
});
