import { env } from "cloudflare:workers";
import { evictAllDurableObjects, listDurableObjectIds, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { CounterObject } from "../../src/durable/counters/counter-object.ts";
import type { CounterCall } from "../../src/stored/wire-calls.ts";
import type { Env } from "../../src/config.ts";
import { gateway, uniqueIp } from "../support/app.ts";
import { driveObject, OBJECT_EPOCH } from "../support/driven-object.ts";
import { COUNTER_TABLES } from "../../src/stored/counter-tables.ts";
import { makeTables } from "../support/stored-tables.ts";

const counters = (env as unknown as Env).COUNTERS;

const rules = {
  domain: "durability",
  descriptors: [
    {
      key: "remote_address",
      rate_limits: [
        { unit: "minute", requests_per_unit: 5 },
        { unit: "second", requests_per_unit: 100, algorithm: "token_bucket" },
      ],
    },
  ],
  routes: [{ match: { path: "/*" }, descriptors: [[{ key: "remote_address" }]] }],
};

/** Run every counter object's alarm now: each writes its unsaved changes (the checkpoint it is set for). */
async function checkpointAll(): Promise<void> {
  for (const id of await listDurableObjectIds(counters)) await runDurableObjectAlarm(counters.get(id));
}

function call(key: string, windowMs: number, limit: number, cost = 1): CounterCall {
  return { key, cost, limits: [{ id: `test-${windowMs}`, algorithm: "fixed_window", limit, windowMs, burst: limit }] };
}

describe("durability of counters", () => {
  it("keeps a one-minute counter across eviction of every object, once checkpointed", async () => {
    const send = gateway(rules);
    const ip = uniqueIp();
    for (let i = 0; i < 3; i++) await send("/", { ip });
    // The checkpoint is the alarm set for persist_ms (1000) after the first hit: run it rather than wait for it.
    await checkpointAll();
    await evictAllDurableObjects();
    const after = await send("/", { ip });
    expect(after.status).toBe(200);
    expect(after.headers.get("X-RateLimit-Remaining")).toBe("1");
    await checkpointAll();
    await evictAllDurableObjects();
    expect((await send("/", { ip })).headers.get("X-RateLimit-Remaining")).toBe("0");
    expect((await send("/", { ip })).status).toBe(429);
  });

  it("writes only windows of a minute or longer to storage, at their checkpoint", async () => {
    const stub = counters.getByName("durability-direct");
    await stub.decide([call("minute-key", 60_000, 10), call("second-key", 1_000, 10)]);
    // The first change after a quiet spell is written at once (docs/reliability.md, "What a request writes"); a second waits for its checkpoint.
    expect(await stub.stats()).toMatchObject({ memory: 2, stored: 1 });
    await stub.decide([call("minute-key-2", 60_000, 10), call("second-key-2", 1_000, 10)]);
    expect(await stub.stats()).toMatchObject({ memory: 4, stored: 1 });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await stub.stats()).toMatchObject({ memory: 4, stored: 2 });
  });

  it("sweeps idle counters from memory and storage", async () => {
    const stub = counters.getByName("durability-sweep");
    let now = OBJECT_EPOCH;
    await driveObject(stub, () => now);
    await stub.decide([call("short", 1_000, 10)]);
    await runInDurableObject(stub, (_instance: CounterObject, state) => {
      // A stored counter that went idle long ago, as left by an earlier run (with the tables it made). Break tried:
      // LazyTable.exists() not asking storage again (the row written behind the object's back never seen).
      makeTables(state.storage.sql, COUNTER_TABLES);
      state.storage.sql.exec("INSERT INTO counters (id, state, idle_at) VALUES (?, ?, ?)", "old\u0001x", "{}", 1);
    });
    expect(await stub.stats()).toMatchObject({ memory: 1, stored: 1 });
    // The one-second window is idle once it and the next have passed.
    now += 2_001;
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await stub.stats()).toMatchObject({ memory: 0, stored: 0 });
  });

  it("sets its sweep for when a counter can first be idle, and earlier when a shorter one arrives", async () => {
    const stub = counters.getByName("durability-sweep-time");
    const alarm = () => runInDurableObject(stub, (_instance: CounterObject, state) => state.storage.getAlarm());
    let now = OBJECT_EPOCH + 1_234;
    await driveObject(stub, () => now);
    const before = now;
    await stub.decide([call("hour", 3_600_000, 10)]);
    // Written at once (the first change after a quiet spell): no alarm for a checkpoint.
    // A fixed window of an hour is idle at the end of its window: no sweep before then.
    const windowEnd = Math.floor(before / 3_600_000) * 3_600_000 + 3_600_000;
    expect(await alarm()).toBeGreaterThanOrEqual(Math.max(windowEnd, before + 10_000));
    await stub.decide([call("second", 1_000, 10)]);
    // The one-second counter can be idle within 2 s: the sweep moves to the shortest interval, 10 s from now.
    expect(await alarm()).toBe(before + 10_000);
    // Once that earlier sweep has run, the next one waits for the hour counter again.
    now = before + 10_000;
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await stub.stats()).toMatchObject({ memory: 1, stored: 1 });
    expect(await alarm()).toBeGreaterThanOrEqual(windowEnd);
  });

  it("decides a batch in order, as if each call came alone", async () => {
    const stub = counters.getByName("durability-batch");
    const verdicts = await stub.decide(Array.from({ length: 5 }, () => call("batch", 60_000, 3)));
    expect(verdicts.map((v) => v.allowed)).toEqual([true, true, true, false, false]);
    expect(verdicts.map((v) => v.decisions[0].remaining)).toEqual([2, 1, 0, 0, 0]);
  });

  it("consumes nothing from any window when one window rejects", async () => {
    const stub = counters.getByName("durability-multi");
    const both = (cost: number): CounterCall => ({
      key: "multi",
      cost,
      limits: [
        { id: "big", algorithm: "fixed_window", limit: 100, windowMs: 60_000, burst: 100 },
        { id: "small", algorithm: "fixed_window", limit: 2, windowMs: 3_600_000, burst: 2 },
      ],
    });
    await stub.decide([both(2)]);
    const [rejected] = await stub.decide([both(1)]);
    expect(rejected.allowed).toBe(false);
    expect(rejected.decisions[0].remaining).toBe(98);
    const peek = await stub.peek(both(0));
    expect(peek.decisions[0].remaining).toBe(98);
    expect(peek.decisions[1].remaining).toBe(0);
  });

  it("reset forgets every window of a key, in memory and storage", async () => {
    const stub = counters.getByName("durability-reset");
    await stub.decide([call("gone", 60_000, 3), call("kept", 60_000, 3)]);
    await runDurableObjectAlarm(stub);
    expect((await stub.stats()).stored).toBe(2);
    await stub.decide([call("gone", 60_000, 3)]);
    await stub.reset("gone");
    expect((await stub.peek(call("gone", 60_000, 3))).decisions[0].remaining).toBe(3);
    expect((await stub.peek(call("kept", 60_000, 3))).decisions[0].remaining).toBe(2);
    // Neither the stored row nor the unsaved change of "gone" comes back at the checkpoint.
    await runDurableObjectAlarm(stub);
    expect((await stub.stats()).stored).toBe(1);
    await evictAllDurableObjects();
    const fresh = counters.getByName("durability-reset");
    expect((await fresh.peek(call("gone", 60_000, 3))).decisions[0].remaining).toBe(3);
    expect((await fresh.peek(call("kept", 60_000, 3))).decisions[0].remaining).toBe(2);
  });
});
