/**
 * `on_limit: "queue"`, the happy path, with real Queues and Durable
 * Objects: over-limit requests are accepted with 202, delivered to the test
 * origin exactly once each, intact, and no faster than the limit (the
 * consumer takes its slots from the same counter as live traffic). The
 * pacing is checked on one driven clock (queueOnOneClock): the counter, the
 * isolate and the consumer's waits move together, so "no faster than the
 * limit" is read from the instants the clock showed at each delivery, never
 * from how long the machine took.
 */
import { describe, expect, it } from "vitest";
import { QUEUE_MAX_BODY_BYTES } from "../../src/queue/message.ts";
import { uniqueIp } from "../support/app.ts";
import { originRecords, uniqueTag } from "../support/origin.ts";
import { queueGateway, queueOnOneClock, queueRules, untilState, type QueuedView } from "./support.ts";

const T = 250; // 4 a second, one at a time

describe('on_limit "queue": delivery', () => {
  // Break tried: the consumer not waiting for its slot (`scheduler.wait` dropped from src/queue/pace.ts): the five
  // queued deliveries came at the start instant, and the pacing check failed.
  it("accepts the excess with 202 and delivers each request once, at no more than the limit", async () => {
    const ip = uniqueIp();
    const tag = uniqueTag("queue");
    const q = await queueOnOneClock({ unit: "second", requests_per_unit: 4, algorithm: "gcra", burst: 1 }, ip, tag);
    const start = q.clock.at;
    try {
      const responses = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          q.call(`/hooks/${i}?n=${i}`, {
            ip,
            method: "POST",
            body: `payload-${i}`,
            headers: { "x-test-tag": tag, "content-type": "text/plain" },
          }),
        ),
      );
      expect(responses.map((r) => r.status).sort()).toEqual([200, 202, 202, 202, 202, 202]);

      const accepted = responses.filter((r) => r.status === 202);
      const locations: string[] = [];
      for (const r of accepted) {
        const body = await r.json<{ id: string; state: string; location: string }>();
        const location = r.headers.get("Location")!;
        expect(location).toMatch(/^\/__ratelimit\/queued\/[0-9a-f-]{36}$/);
        expect(body).toEqual({ id: location.split("/").pop(), state: "queued", location });
        expect(r.headers.get("X-RateLimit-Decision")).toBe("queued");
        expect(r.headers.get("Retry-After")).toBeNull();
        expect(r.headers.get("RateLimit-Policy")).toBe('"webhooks";q=4;w=1');
        expect(r.headers.get("RateLimit")).toMatch(/^"webhooks";r=\d+;t=[1-9]\d*$/);
        locations.push(location);
      }
      // Every queued one needs a slot after the start instant, and no wait ends before the test opens them.
      const first = await (await q.call(locations[0], { ip })).json<QueuedView>();
      expect(first).toMatchObject({ state: "queued", method: "POST", attempts: 0 });
      q.open();

      const views = await Promise.all(locations.map((l) => untilState(q.call, l, ip, "delivered", 15_000)));
      for (const view of views) expect(view).toMatchObject({ state: "delivered", attempts: 1, origin_status: 200 });

      const records = await originRecords(tag);
      expect(records).toHaveLength(6);
      const queued = records.filter((r) => r.headers["x-floodgate-queued-id"] !== undefined);
      expect(queued.map((r) => r.headers["x-floodgate-queued-id"]).sort()).toEqual(views.map((v) => v.id).sort());
      for (const record of records) {
        const n = new URL(record.url, "http://x").searchParams.get("n");
        expect(record.url).toBe(`/hooks/${n}?n=${n}`);
        expect(record.method).toBe("POST");
        expect(record.body).toBe(`payload-${n}`);
        expect(record.headers["content-type"]).toBe("text/plain");
      }
      for (const record of queued) expect(record.headers["x-floodgate-attempt"]).toBe("1");

      // No faster than the limit, on the driven clock: the live one at the start, the k-th queued one no earlier than
      // k slots of T after it (each is sent only once the clock has reached its slot).
      expect(q.delivered.filter((d) => !d.queued).map((d) => d.at)).toEqual([start]);
      const at = q.delivered
        .filter((d) => d.queued)
        .map((d) => d.at)
        .sort((a, b) => a - b);
      expect(at).toHaveLength(5);
      for (const [k, instant] of at.entries()) expect(instant).toBeGreaterThanOrEqual(start + (k + 1) * T);

      // Exactly once: nothing more arrives after delivery. (A real pause, asserting no time: on a slow machine it can
      // only miss a late duplicate, never fail falsely; test/queue/consumer.test.ts holds "delivered once" exactly.)
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(await originRecords(tag)).toHaveLength(6);
    } finally {
      q.restore();
    }
  });

  // Break tried: as above (no wait for the retry-after in src/queue/pace.ts): the queued ones were never delivered.
  it("paces a window algorithm by waiting out its retry-after", async () => {
    // An exact sliding window: at most 2 in any second, so any 3 in a row span a second (on the driven clock).
    const ip = uniqueIp();
    const tag = uniqueTag("queue-window");
    const q = await queueOnOneClock({ unit: "second", requests_per_unit: 2, algorithm: "sliding_window_log" }, ip, tag);
    try {
      const responses: Response[] = [];
      for (let i = 0; i < 5; i++) responses.push(await q.call(`/w/${i}`, { ip, method: "PUT", body: String(i), headers: { "x-test-tag": tag } }));
      expect(responses.map((r) => r.status).sort()).toEqual([200, 200, 202, 202, 202]);
      q.open();
      const locations = responses.filter((r) => r.status === 202).map((r) => r.headers.get("Location")!);
      await Promise.all(locations.map((l) => untilState(q.call, l, ip, "delivered", 15_000)));
      expect(await originRecords(tag)).toHaveLength(5);
      const at = q.delivered.map((d) => d.at).sort((a, b) => a - b);
      expect(at).toHaveLength(5);
      for (let i = 2; i < at.length; i++) expect(at[i] - at[i - 2]).toBeGreaterThanOrEqual(1000);
    } finally {
      q.restore();
    }
  });

  it(`queues a body of exactly ${QUEUE_MAX_BODY_BYTES} bytes intact, and answers 413 to one byte more`, async () => {
    const call = queueGateway(queueRules({ unit: "second", requests_per_unit: 1, algorithm: "token_bucket" }));
    const ip = uniqueIp();
    const tag = uniqueTag("queue-size");
    const bytes = new Uint8Array(QUEUE_MAX_BODY_BYTES).map((_, i) => 32 + ((i * 7) % 95)); // printable, so the echo compares
    expect((await call("/first", { ip, method: "POST", body: "x" })).status).toBe(200);
    const tooBig = await call("/big", { ip, method: "POST", body: new Uint8Array(QUEUE_MAX_BODY_BYTES + 1), headers: { "x-test-tag": tag } });
    expect(tooBig.status).toBe(413);
    expect(tooBig.headers.get("content-type")).toBe("application/problem+json");
    expect(tooBig.headers.get("Location")).toBeNull();
    expect(await tooBig.json()).toMatchObject({ status: 413, max_body_bytes: QUEUE_MAX_BODY_BYTES });
    const fits = await call("/big", { ip, method: "POST", body: bytes, headers: { "x-test-tag": tag } });
    expect(fits.status).toBe(202);
    await untilState(call, fits.headers.get("Location")!, ip, "delivered", 10_000);
    const [record] = await originRecords(tag);
    expect(record.bodyLength).toBe(QUEUE_MAX_BODY_BYTES);
    expect(record.body).toBe(new TextDecoder().decode(bytes));
  });

  it("with no ORIGIN_URL (the built-in echo) a queued request counts as delivered with 200", async () => {
    const call = queueGateway(queueRules({ unit: "second", requests_per_unit: 1, algorithm: "gcra" }), undefined);
    const ip = uniqueIp();
    const [, second] = [await call("/e", { ip }), await call("/e", { ip })];
    expect(second.status).toBe(202);
    const view = await untilState(call, second.headers.get("Location")!, ip, "delivered", 10_000);
    expect(view).toMatchObject({ origin_status: 200, attempts: 1, method: "GET", path: "/e" });
  });
});
