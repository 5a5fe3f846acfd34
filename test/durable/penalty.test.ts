/**
 * The penalty box through the real gateway and real counter objects
 * (docs/rules.md, "Penalty box"): a refusal blocks the key for block_s even
 * once its window has refilled, Retry-After (and the RateLimit headers and
 * the problem body) say until when, each breach that reaches the object
 * escalates the block up to max_block_s, a counter reset lifts it, the
 * block survives in storage, and an isolate's certain-block cache answers
 * it without calling the object. Isolates and objects stand on one clock
 * the test moves.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { CounterObject } from "../../src/durable/counter-object.ts";
import { gateway, testEnv } from "../support/app.ts";
import { driveObject, drivenCounters, OBJECT_EPOCH } from "../support/driven-object.ts";
import { TOKEN } from "../support/envoy.ts";

const DOMAIN = "gw-penalty";
const rules = {
  domain: DOMAIN,
  placement: "per_key",
  descriptors: [
    {
      key: "user",
      rate_limit: { name: "per-user", unit: "second", requests_per_unit: 2, algorithm: "fixed_window", penalty: { block_s: 3, escalate: 2, max_block_s: 10 } },
    },
  ],
  routes: [{ match: {}, descriptors: [[{ key: "user", header: "x-user" }]] }],
};

/** The object that owns a per_key counter, to count the calls it serves. */
const ownerOf = (user: string) => testEnv.COUNTERS.getByName(`${DOMAIN}/key/${JSON.stringify([DOMAIN, ["user", user]])}`);
const callsOf = async (user: string) => (await ownerOf(user).stats()).calls;

let n = 0;
/** A fresh user, and a clock (at a whole second) that its isolates and objects share. */
function scene() {
  const user = `u${++n}`;
  const clock = { at: OBJECT_EPOCH + n * 1_000_000 };
  const now = () => clock.at;
  /** A new isolate: its own edge runtime and certain-block cache. */
  const isolate = () => {
    const call = gateway(rules, { ADMIN_TOKEN: TOKEN, COUNTERS: drivenCounters(testEnv.COUNTERS, now) }, { now });
    return {
      hit: () => call("/x", { headers: { "x-user": user } }),
      reset: () => call(`/__ratelimit/counters?domain=${DOMAIN}&descriptor=user=${user}`, { method: "DELETE", headers: { authorization: `Bearer ${TOKEN}` } }),
      read: () => call(`/__ratelimit/counters?domain=${DOMAIN}&descriptor=user=${user}`, { headers: { authorization: `Bearer ${TOKEN}` } }),
    };
  };
  return { user, clock, isolate };
}

const statuses = async (responses: Promise<Response>[]) => (await Promise.all(responses)).map((r) => r.status);
/** The 429's truth about when: Retry-After, the RateLimit header's t and the body's retry_after, in seconds. */
async function refusal(response: Response) {
  expect(response.status).toBe(429);
  const body = await response.json<{ retry_after?: number }>();
  const t = /;t=(\d+)/.exec(response.headers.get("ratelimit") ?? "")?.[1];
  return { retryAfter: Number(response.headers.get("retry-after")), t: Number(t), body: body.retry_after };
}

describe("penalty box through the gateway", () => {
  // Break tried: decidePenalized returning the window's verdict without looking at the block (blocksNow skipped): 200 at +1 s.
  it("keeps refusing after the window has refilled, and Retry-After says until when", async () => {
    const { clock, isolate } = scene();
    const a = isolate();
    expect(await statuses([a.hit(), a.hit()])).toEqual([200, 200]);
    expect(await refusal(await a.hit())).toEqual({ retryAfter: 3, t: 3, body: 3 });
    // The 2/s window has refilled twice over; the block holds to its end, and says so.
    clock.at += 2_000;
    expect(await refusal(await a.hit())).toEqual({ retryAfter: 1, t: 1, body: 1 });
    // A new isolate asks the object itself: the same truth (this hit is a breach, so it escalates to 6 s from the start).
    clock.at += 999;
    const b = isolate();
    expect((await b.hit()).status).toBe(429);
    clock.at += 1;
    expect((await a.hit()).status).toBe(429);
  });

  // Break tried: penaltyStep not multiplying (escalate ignored): the second isolate's Retry-After is 2, not 5.
  it("escalates at each breach that reaches the object, up to max_block_s from the block's start", async () => {
    const { clock, isolate } = scene();
    const a = isolate();
    await statuses([a.hit(), a.hit()]);
    expect((await refusal(await a.hit())).retryAfter).toBe(3);
    // A breach at +1 s from another isolate: 3 s → 6 s from the start.
    clock.at += 1_000;
    expect((await refusal(await isolate().hit())).retryAfter).toBe(5);
    // Once the first isolate's cached block (3 s) ends it asks the object: a breach, 6 s → 10 s (12 s capped).
    clock.at += 2_000;
    expect((await refusal(await a.hit())).retryAfter).toBe(7);
    // More breaches cannot take it past max_block_s from its start.
    clock.at += 6_000;
    expect((await refusal(await isolate().hit())).retryAfter).toBe(1);
    clock.at += 1_000;
    expect(await statuses([a.hit(), isolate().hit()])).toEqual([200, 200]);
  });

  // Break tried: CounterObject.reset not lifting the blocks (penalties.reset removed): 429 after the DELETE.
  it("is lifted by a counter reset, in storage too", async () => {
    const { user, clock, isolate } = scene();
    const a = isolate();
    await statuses([a.hit(), a.hit(), a.hit()]);
    clock.at += 1_500;
    expect((await a.hit()).status).toBe(429);
    const rows = () =>
      runInDurableObject(ownerOf(user), (_: CounterObject, state: DurableObjectState) =>
        state.storage.sql.exec("SELECT until, length_ms FROM blocks").toArray(),
      );
    expect(await rows()).toEqual([{ until: clock.at - 1_500 + 3_000, length_ms: 3_000 }]);
    // Read through the admin API: nothing left until the block's end, and the read is no breach.
    const read = await (await a.read()).json<{ limits: { remaining: number; reset_after_ms: number }[] }>();
    expect(read.limits[0]).toMatchObject({ remaining: 0, reset_after_ms: 1_500 });
    expect(await rows()).toEqual([{ until: clock.at - 1_500 + 3_000, length_ms: 3_000 }]);
    expect((await a.reset()).status).toBe(200);
    expect(await rows()).toEqual([]);
    expect(await statuses([a.hit(), a.hit(), a.hit()])).toEqual([200, 200, 429]);
  });

  // Break tried: the plan marking penalty calls not cacheable (src/limiter/plan.ts): object calls grow with every 429, and this and the first two tests fail.
  it("is answered by the isolate's certain-block cache: no object call until the block ends", async () => {
    const { user, clock, isolate } = scene();
    const a = isolate();
    await statuses([a.hit(), a.hit(), a.hit()]);
    const atBlock = await callsOf(user);
    for (let i = 0; i < 20; i++) {
      clock.at += 100;
      expect((await a.hit()).status).toBe(429);
    }
    expect(await callsOf(user)).toBe(atBlock);
    // At the block's end (3 s after it began) the object is asked again, and its window allows.
    clock.at += 3_000 - 2_000 - 1;
    expect((await a.hit()).status).toBe(429);
    expect(await callsOf(user)).toBe(atBlock);
    clock.at += 1;
    expect((await a.hit()).status).toBe(200);
    expect(await callsOf(user)).toBe(atBlock + 1);
  });

  // Break tried: PenaltyBook.sweep returning before its DELETE (the row stayed after the alarm).
  it("leaves no row once the block has ended and the object's sweep has run", async () => {
    const clock = { at: OBJECT_EPOCH + 900_000_000 };
    const stub = testEnv.COUNTERS.getByName(`penalty-sweep/${Date.now()}`);
    await driveObject(stub, () => clock.at);
    const limit = {
      id: "fw:1:1000:1",
      algorithm: "fixed_window",
      limit: 1,
      windowMs: 1_000,
      burst: 1,
      penalty: { blockMs: 60_000, escalate: 1, maxBlockMs: 60_000 },
    } as const;
    const call = { key: "k", cost: 1, limits: [limit] };
    expect((await stub.decide([call, call])).map((v) => v.allowed)).toEqual([true, false]);
    // No table is no row: an object that holds nothing deletes its storage (docs/reliability.md, "What a request writes").
    const rows = () =>
      runInDurableObject(stub, (_: CounterObject, state: DurableObjectState) =>
        state.storage.sql.exec("SELECT name FROM sqlite_master WHERE name = 'blocks'").toArray().length === 0
          ? []
          : state.storage.sql.exec("SELECT id FROM blocks").toArray(),
      );
    expect(await rows()).toHaveLength(1);
    // The sweep that comes before the block's end keeps it.
    clock.at += 30_000;
    await runDurableObjectAlarm(stub);
    expect(await rows()).toHaveLength(1);
    clock.at += 30_000;
    await runDurableObjectAlarm(stub);
    expect(await rows()).toEqual([]);
    expect((await stub.decide([call]))[0].allowed).toBe(true);
  });
});
