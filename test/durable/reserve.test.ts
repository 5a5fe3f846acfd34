/**
 * Reservations in a real CounterObject: slots are taken atomically, never
 * overlap however the calls arrive, count against the limit for plain
 * decisions, and a reject window on the same counter still refuses.
 */
import { env } from "cloudflare:workers";
import { evictAllDurableObjects } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { CounterCall, CounterVerdict, LimitCall } from "../../src/stored/wire-calls.ts";
import type { Env } from "../../src/config.ts";

const counters = (env as unknown as Env).COUNTERS;
let n = 0;
const fresh = (name: string) => `reserve-test/${name}/${++n}/${Date.now()}`;

// Two a second, one at a time: slots 500 ms apart.
const gcra: LimitCall = { id: "gcra-2s", algorithm: "gcra", limit: 2, windowMs: 1000, burst: 1, reserve: true };
const reserveCall = (key: string, maxDelayMs: number, limits: LimitCall[] = [gcra]): CounterCall => ({ key, limits, cost: 1, kind: "reserve", maxDelayMs });
// Two a minute: slots 30 s apart. The object decides on its own clock, so a delay is its slot less the time
// that passed before the call was decided; with slots this wide, `Math.ceil(delay / 30 s)` names the slot
// however slow the machine (a test's whole run, at most its 30 s timeout, cannot carry a delay into the slot before).
const SLOT_MS = 30_000;
const slow: LimitCall = { id: "gcra-2m", algorithm: "gcra", limit: 2, windowMs: 60_000, burst: 1, reserve: true };
const slotOf = (ms: number | undefined) => Math.ceil((ms ?? 0) / SLOT_MS);

describe("CounterObject reservations", () => {
  it("one batch: slots exactly one emission interval apart, none past maxDelayMs", async () => {
    const key = fresh("batch");
    const verdicts = await counters.getByName(key).decide(Array.from({ length: 8 }, () => reserveCall(key, 2000)));
    // One event, one `now`: the delays are the slots themselves.
    expect(verdicts.map((v) => (v.allowed ? (v.delayMs ?? 0) : -1))).toEqual([0, 500, 1000, 1500, 2000, -1, -1, -1]);
    const refused = verdicts[5];
    expect(refused.decisions[0].retryAfterMs).toBeGreaterThan(2000);
  });

  it("50 concurrent RPCs: exactly the slots within maxDelayMs are handed out, each once", async () => {
    const key = fresh("concurrent");
    const stub = counters.getByName(key);
    // Slots 0 to 120 s after the first decision.
    const verdicts = (await Promise.all(Array.from({ length: 50 }, () => stub.decide([reserveCall(key, 120_000, [slow])])))).map(([v]) => v as CounterVerdict);
    const allowed = verdicts.filter((v) => v.allowed);
    expect(allowed).toHaveLength(5);
    const delays = allowed.map((v) => v.delayMs ?? 0).sort((a, b) => a - b);
    expect(delays[0]).toBe(0);
    // One call per slot: the k-th delay lies in slot k's last 30 s.
    expect(delays.map(slotOf)).toEqual([0, 1, 2, 3, 4]);
    // The refused ones were told to come back after the last slot within reach.
    for (const refused of verdicts.filter((v) => !v.allowed)) expect(refused.decisions[0].retryAfterMs).toBeGreaterThan(delays[4]);
  });

  it("reserved slots count against plain decisions, and survive nothing but their own window", async () => {
    const key = fresh("plain");
    const stub = counters.getByName(key);
    await stub.decide([reserveCall(key, 120_000, [slow]), reserveCall(key, 120_000, [slow]), reserveCall(key, 120_000, [slow])]);
    const [plain] = await stub.decide([{ key, limits: [{ ...slow, reserve: undefined }], cost: 1 }]);
    // Three slots (0, 30 and 60 s): the next plain request fits at 90 s at the earliest, in the fourth slot.
    expect(plain.allowed).toBe(false);
    expect(slotOf(plain.decisions[0].retryAfterMs)).toBe(3);
  });

  it("a reject window on the same counter refuses even when a slot is free, and then nothing is taken", async () => {
    const key = fresh("mixed");
    const daily: LimitCall = { id: "day-2", algorithm: "fixed_window", limit: 2, windowMs: 86_400_000, burst: 2 };
    const stub = counters.getByName(key);
    const verdicts = await stub.decide(Array.from({ length: 3 }, () => reserveCall(key, 120_000, [slow, daily])));
    expect(verdicts.map((v) => v.allowed)).toEqual([true, true, false]);
    expect(verdicts[2].decisions[1].allowed).toBe(false);
    // The refusal took no slot: the next reservation is still the third slot (60 s).
    const [again] = await stub.decide([reserveCall(key, 120_000, [slow])]);
    expect(slotOf(again.delayMs)).toBe(2);
  });

  it("a per-minute reservation with strict durability is written through and survives eviction", async () => {
    const key = fresh("durable");
    const perMinute: LimitCall = { id: "gcra-6m", algorithm: "gcra", limit: 6, windowMs: 60_000, burst: 1, reserve: true, strict: true };
    const stub = counters.getByName(key);
    const [first, second] = await stub.decide([reserveCall(key, 60_000, [perMinute]), reserveCall(key, 60_000, [perMinute])]);
    expect([first.delayMs ?? 0, second.delayMs]).toEqual([0, 10_000]);
    await evictAllDurableObjects();
    const [third] = await counters.getByName(key).decide([reserveCall(key, 60_000, [perMinute])]);
    // The third slot (20 s), 10 s wide: however long the eviction took (under 10 s), it lies in (10 s, 20 s].
    expect(Math.ceil((third.delayMs ?? 0) / 10_000)).toBe(2);
  });
});
