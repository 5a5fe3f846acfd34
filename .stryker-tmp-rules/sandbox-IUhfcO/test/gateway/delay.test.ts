/**
 * `on_limit: "delay"` through the gateway, against the real test origin,
 * which records when each request arrived. The checks are one-sided where
 * timing is involved: no request reaches the origin before its slot, and
 * the rate over the burst is the limit's within one emission interval.
 */
// @ts-nocheck

import { describe, expect, it, vi } from "vitest";
import { gateway, testEnv, uniqueIp } from "../support/app.ts";
import { auth, TOKEN } from "../support/envoy.ts";
import { originRecords, uniqueTag } from "../support/origin.ts";

const T = 250; // emission interval of 4 requests a second
let domains = 0;
const delayRules = (maxDelayMs: number) => ({
  domain: `delay-${++domains}`,
  descriptors: [
    {
      key: "remote_address",
      rate_limit: { name: "shaped", unit: "second", requests_per_unit: 4, algorithm: "gcra", burst: 1, on_limit: "delay", max_delay_ms: maxDelayMs },
    },
  ],
  routes: [{ match: {}, descriptors: [[{ key: "remote_address" }]] }],
});

describe('on_limit "delay"', () => {
  it("forwards a burst at the limit's rate, none before its slot; past max_delay_ms is a 429", async () => {
    const call = gateway(delayRules(1100), { ORIGIN_URL: testEnv.TEST_ORIGIN_URL });
    const ip = uniqueIp();
    const tag = uniqueTag("delay");
    // Every wait the gateway makes (still for real): it must be exactly the delay it reports, nothing more.
    const spy = vi.spyOn(scheduler, "wait");
    const t0 = Date.now();
    const sent: number[] = [];
    let responses: Response[];
    let waits: number[];
    try {
      responses = await Promise.all(
        Array.from({ length: 8 }, (_, i) => {
          sent[i] = Date.now();
          return call(`/burst?i=${i}`, { ip, headers: { "x-test-tag": tag } });
        }),
      );
    } finally {
      waits = spy.mock.calls.map(([ms]) => ms);
      spy.mockRestore();
    }
    // Slots 0, 250, …, 1000 ms fit within 1100 ms; the sixth (1250 ms) does not.
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
    const delays = forwarded.map(delayOf).sort((a, b) => a - b);
    for (const [k, d] of delays.entries()) expect(d).toBeLessThanOrEqual(k * T);
    expect(waits.sort((a, b) => a - b)).toEqual(delays.filter((d) => d > 0));
    for (const i of forwarded) {
      const delayed = delayOf(i) > 0;
      expect(responses[i].headers.get("X-RateLimit-Decision")).toBe(delayed ? "delayed" : null);
      expect(responses[i].headers.get("RateLimit-Policy")).toBe('"shaped";q=4;w=1');
      expect(responses[i].headers.get("RateLimit")).toMatch(/^"shaped";r=0;t=[1-9]\d*$/);
    }

    const records = await originRecords(tag);
    expect(records).toHaveLength(5); // the refused ones never reached the origin
    for (const record of records) {
      const i = Number(new URL(record.url, "http://x").searchParams.get("i"));
      expect(forwarded).toContain(i);
      // Never earlier than its slot: the slot is at least `delay` after the request was sent.
      expect(record.arrivedAt).toBeGreaterThanOrEqual(sent[i] + delayOf(i));
    }
    const arrivals = records.map((r) => r.arrivedAt).sort((a, b) => a - b);
    arrivals.forEach((at, k) => {
      expect(at).toBeGreaterThanOrEqual(t0 + k * T);
    });
    // Over the burst, 4 intervals of T: at least the limit's spacing.
    const span = arrivals[4] - arrivals[0];
    expect(span).toBeGreaterThanOrEqual(4 * T - T / 2);
    // Slots exactly T apart, however slow the machine: the k-th request to arrive had slot k (forwarded when
    // its wait ended, and slots are T apart), which lies
    // between the moment it was sent plus its delay and its arrival, so one first slot s fits them all
    // (s + k × T within [sent + delay, arrival] for every k). Slots closer together, or further apart, do not.
    const inOrder = records.map((r) => Number(new URL(r.url, "http://x").searchParams.get("i")));
    const windows = inOrder.map((i, k) => ({ from: sent[i] + delayOf(i) - k * T, to: records[k].arrivedAt - k * T }));
    expect(Math.max(...windows.map((w) => w.from))).toBeLessThanOrEqual(Math.min(...windows.map((w) => w.to)));
  });

  it("never answers from the block cache: a refused client gets a slot as soon as one is near", async () => {
    const call = gateway(delayRules(500));
    const ip = uniqueIp();
    const started = Date.now();
    const wave = Array.from({ length: 4 }, () => call("/x", { ip }));
    const first = Promise.all(wave);
    // Slots 0, 250 and 500 ms are taken, the fourth (750 ms) is refused; a
    // plain 429 would be cached until 750 ms, but 300 ms in that slot is near.
    // The refusal answers at once and comes only after the three slots were
    // taken, so once it is here the whole wave has been decided.
    await Promise.any(wave.map((r) => r.then((response) => (response.status === 429 ? response : new Promise<never>(() => {})))));
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + 300 - Date.now())));
    const later = await call("/x", { ip });
    expect((await first).map((r) => r.status).sort()).toEqual([200, 200, 200, 429]);
    expect(later.status).toBe(200);
    expect(later.headers.get("X-RateLimit-Decision")).toBe("delayed");
    const echo = await later.json<{ rate_limit: { reason: string; delay_ms: number } }>();
    expect(echo.rate_limit.reason).toBe("delayed");
    expect(echo.rate_limit.delay_ms).toBeGreaterThan(0);
    expect(echo.rate_limit.delay_ms).toBeLessThanOrEqual(500);
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
