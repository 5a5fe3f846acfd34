/**
 * `on_limit: "delay"` through the gateway, against the real test origin.
 * One driven clock per test: the counter object and the isolate decide at
 * the instant the test sets, and the gateway's waits (`scheduler.wait`) end
 * only when the test ends them, so what is checked is the order of events
 * (a request reaches the origin only once a wait of exactly its slot has
 * ended), never how long the machine took.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import type { Env } from "../../src/config.ts";
import { gateway, testEnv, uniqueIp } from "../support/app.ts";
import { driveObject, OBJECT_EPOCH } from "../support/driven-object.ts";
import { auth, TOKEN } from "../support/envoy.ts";
import { originRecords, uniqueTag } from "../support/origin.ts";

const T = 250; // emission interval of 4 requests a second
let domains = 0;
const delayRules = (maxDelayMs: number) => ({
  domain: `delay-${++domains}`,
  placement: "per_key",
  descriptors: [
    {
      key: "remote_address",
      rate_limit: { name: "shaped", unit: "second", requests_per_unit: 4, algorithm: "gcra", burst: 1, on_limit: "delay", max_delay_ms: maxDelayMs },
    },
  ],
  routes: [{ match: {}, descriptors: [[{ key: "remote_address" }]] }],
});

/** The object that owns a client's counter (per-key placement), to put it on the test's clock. */
const ownerOf = (domain: string, ip: string) => (env as unknown as Env).COUNTERS.getByName(`${domain}/key/${JSON.stringify([domain, ["remote_address", ip]])}`);

/** A gateway over `rules` whose isolate and whose client's object share one clock the test moves. */
async function onOneClock(rules: ReturnType<typeof delayRules>, ip: string, vars: Partial<Env> = {}) {
  const clock = { at: OBJECT_EPOCH };
  await driveObject(ownerOf(rules.domain, ip), () => clock.at);
  return { clock, call: gateway(rules, vars, { now: () => clock.at }) };
}

/**
 * The gateway's waits, held: each `scheduler.wait(ms)` it makes is recorded
 * and ends only when the test calls `end`.
 */
function heldWaits() {
  const held: { ms: number; end: () => void }[] = [];
  const changed: (() => void)[] = [];
  const spy = vi.spyOn(scheduler, "wait").mockImplementation(
    (ms: number) =>
      new Promise<void>((end) => {
        held.push({ ms, end });
        for (const notify of changed.splice(0)) notify();
      }),
  );
  return {
    held,
    /** Resolves once `ready()` holds, looked at after each new wait (and now). */
    until(ready: () => boolean): Promise<void> {
      return new Promise<void>((resolve) => {
        const look = () => (ready() ? resolve() : changed.push(look));
        look();
      });
    },
    notify: () => {
      for (const look of changed.splice(0)) look();
    },
    restore: () => spy.mockRestore(),
  };
}

describe('on_limit "delay"', () => {
  // Breaks tried: forwarding without the wait (`await scheduler.wait` removed from src/gateway/app.ts): 8 answers
  // and no wait, so the count of waits fails; waiting half the delay: the waits are not the slots.
  it("forwards a burst at the limit's rate, each only once its slot's wait ended; past max_delay_ms is a 429", async () => {
    const rules = delayRules(1100);
    const ip = uniqueIp();
    const { call } = await onOneClock(rules, ip, { ORIGIN_URL: testEnv.TEST_ORIGIN_URL });
    const tag = uniqueTag("delay");
    const waits = heldWaits();
    const responses: Response[] = [];
    let answered = 0;
    try {
      // All 8 at one instant of the clock: slots 0, 250, …, 1000 ms fit within 1100 ms; the sixth (1250 ms) does not.
      const pending = Array.from({ length: 8 }, (_, i) =>
        call(`/burst?i=${i}`, { ip, headers: { "x-test-tag": tag } }).then((response) => {
          responses[i] = response;
          answered += 1;
          waits.notify();
          return response;
        }),
      );
      // Every request either answered or waiting for its slot: nothing else can happen until a wait ends.
      await waits.until(() => answered + waits.held.length === 8);
      expect(waits.held.map((w) => w.ms).sort((a, b) => a - b)).toEqual([T, 2 * T, 3 * T, 4 * T]);
      expect(answered).toBe(4);
      // The one without a delay is at the origin; none of the waiting ones is.
      expect(await originRecords(tag)).toHaveLength(1);
      // End the waits one at a time, shortest first: each ended wait lets exactly its own request through.
      for (const [k, wait] of [...waits.held].sort((a, b) => a.ms - b.ms).entries()) {
        wait.end();
        await waits.until(() => answered === 5 + k);
        expect(await originRecords(tag)).toHaveLength(2 + k);
      }
      await Promise.all(pending);
    } finally {
      waits.restore();
    }
    const forwarded = responses.flatMap((r, i) => (r.status === 200 ? [i] : []));
    expect(forwarded).toHaveLength(5);
    const refused = responses.filter((r) => r.status === 429);
    expect(refused).toHaveLength(3);
    for (const r of refused) {
      expect(Number(r.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
      expect((await r.json<Record<string, unknown>>())["violated-policies"]).toEqual(["shaped"]);
      expect(r.headers.get("X-RateLimit-Decision")).toBeNull();
    }
    const delayOf = (i: number) => Number(responses[i].headers.get("X-RateLimit-Delay-Ms") ?? 0);
    // Slots exactly T apart from the first.
    expect(forwarded.map(delayOf).sort((a, b) => a - b)).toEqual([0, T, 2 * T, 3 * T, 4 * T]);
    for (const i of forwarded) {
      expect(responses[i].headers.get("X-RateLimit-Decision")).toBe(delayOf(i) > 0 ? "delayed" : null);
      expect(responses[i].headers.get("RateLimit-Policy")).toBe('"shaped";q=4;w=1');
      expect(responses[i].headers.get("RateLimit")).toMatch(/^"shaped";r=0;t=[1-9]\d*$/);
    }
    // At the origin, in the order their waits ended: slot by slot; the refused ones never reached it.
    const records = await originRecords(tag);
    const arrivedDelays = records.map((r) => delayOf(Number(new URL(r.url, "http://x").searchParams.get("i"))));
    expect(arrivedDelays).toEqual([0, T, 2 * T, 3 * T, 4 * T]);
  });

  // Break tried: delay limits cacheable in src/limiter/plan.ts (`plain` dropped from `cacheable`): the later request
  // was answered 429 from the cache.
  it("never answers from the block cache: a refused client gets a slot as soon as one is near", async () => {
    const rules = delayRules(500);
    const ip = uniqueIp();
    const { clock, call } = await onOneClock(rules, ip);
    const waits = vi.spyOn(scheduler, "wait").mockResolvedValue(undefined);
    try {
      // Slots 0, 250 and 500 ms are taken, the fourth (750 ms) is refused. A plain 429 would be cached; 300 ms on,
      // slot 750 is 450 ms away, within max_delay_ms: the client gets it.
      const first = await Promise.all(Array.from({ length: 4 }, () => call("/x", { ip })));
      expect(first.map((r) => r.status).sort()).toEqual([200, 200, 200, 429]);
      clock.at += 300;
      const later = await call("/x", { ip });
      expect(later.status).toBe(200);
      expect(later.headers.get("X-RateLimit-Decision")).toBe("delayed");
      const echo = await later.json<{ rate_limit: { reason: string; delay_ms: number } }>();
      expect(echo.rate_limit).toMatchObject({ reason: "delayed", delay_ms: 3 * T - 300 });
    } finally {
      waits.mockRestore();
    }
  });

  it("SHADOW_MODE delays nothing: over-limit requests pass at once", async () => {
    const call = gateway(delayRules(5000), { SHADOW_MODE: "true" });
    const ip = uniqueIp();
    const responses = await Promise.all(Array.from({ length: 3 }, () => call("/x", { ip })));
    const reasons = await Promise.all(responses.map(async (r) => (await r.json<{ rate_limit: { reason: string } }>()).rate_limit.reason));
    expect(reasons.sort()).toEqual(["allowed", "shadow", "shadow"]);
    for (const r of responses) expect(r.headers.get("X-RateLimit-Delay-Ms")).toBeNull();
  });

  it("the decision API answers plainly: OVER_LIMIT, nothing reserved", async () => {
    const rules = delayRules(5000);
    const call = gateway(rules, { ADMIN_TOKEN: TOKEN });
    const ask = () =>
      call("/__ratelimit/json", {
        method: "POST",
        headers: auth,
        body: JSON.stringify({ domain: rules.domain, descriptors: [{ entries: [{ key: "remote_address", value: "192.0.2.99" }] }] }),
      });
    expect((await ask()).status).toBe(200);
    const over = await ask();
    expect(over.status).toBe(429);
    expect((await over.json<{ overallCode: string }>()).overallCode).toBe("OVER_LIMIT");
  });
});
