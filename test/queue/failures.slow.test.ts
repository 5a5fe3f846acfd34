/**
 * Failed deliveries: a 5xx or a network error is retried with exponential
 * backoff (QUEUE_RETRY_BASE_SECONDS=1 in the tests: 1 s, then 2 s) and,
 * past QUEUE_MAX_ATTEMPTS (3 in the tests), the request goes to the real
 * dead-letter queue, where a probe worker (vitest.config.ts) hands it to the
 * test origin under the tag "dead-letters".
 */
import { describe, expect, it } from "vitest";
import { uniqueIp } from "../support/app.ts";
import { eventually, originRecords, uniqueTag } from "../support/origin.ts";
import { queueGateway, queueRules, untilState, type QueuedView } from "./support.ts";

const rules = queueRules({ unit: "second", requests_per_unit: 1, algorithm: "gcra" });

/** The dead letter of queued request `id`, once the probe has seen it. */
async function deadLetter(id: string): Promise<{ id: string; failure: { attempts: number; status?: number; error?: string }; request: { path: string } }> {
  return eventually(
    async () => {
      const records = await originRecords("dead-letters");
      const found = records.map((r) => JSON.parse(r.body)).find((m) => m.id === id);
      return found ?? undefined;
    },
    10_000,
    `dead letter ${id}`,
  );
}

describe('on_limit "queue": failures', () => {
  it("retries an origin's 500 with backoff, then dead-letters it; the status tells each state", async () => {
    const call = queueGateway(rules);
    const ip = uniqueIp();
    const tag = uniqueTag("queue-500");
    const live = await call("/status/500", { ip, method: "POST", body: "{}", headers: { "x-test-tag": tag } });
    expect(live.status).toBe(500); // the first fits and is forwarded; the origin fails it
    const queued = await call("/status/500", { ip, method: "POST", body: '{"n":2}', headers: { "x-test-tag": tag } });
    expect(queued.status).toBe(202);
    const location = queued.headers.get("Location")!;
    const id = location.split("/").pop()!;

    // Between attempts: still queued, with the failure recorded.
    const retrying = await eventually(
      async () => {
        const view = await (await call(location, { ip })).json<QueuedView>();
        return view.attempts >= 1 && view.state === "queued" ? view : undefined;
      },
      10_000,
      "a first failed attempt",
    );
    expect(retrying).toMatchObject({ origin_status: 500, last_error: "the origin answered 500" });

    const dead = await untilState(call, location, ip, "dead_lettered", 20_000);
    expect(dead).toMatchObject({ attempts: 3, origin_status: 500, last_error: "the origin answered 500" });
    expect(dead.dead_lettered_at).toBeDefined();

    const attempts = (await originRecords(tag)).filter((r) => r.headers["x-floodgate-queued-id"] === id);
    expect(attempts.map((r) => r.headers["x-floodgate-attempt"])).toEqual(["1", "2", "3"]);
    expect(attempts.every((r) => r.body === '{"n":2}')).toBe(true);
    // The backoff between attempts (1 s, then 2 s) is what the consumer asks the queue for: held exactly, with no
    // clock, by test/queue/consumer.test.ts ("retries a 500 after QUEUE_RETRY_BASE_SECONDS × 2^(n−1)").

    const letter = await deadLetter(id);
    expect(letter.failure).toEqual({ attempts: 3, status: 500, error: "the origin answered 500" });
    expect(letter.request.path).toBe("/status/500");
    // Dead is final: nothing more reaches the origin. (A real pause, asserting no time: on a slow machine it can only
    // miss a late attempt, never fail falsely; consumer.test.ts holds the acknowledgement at the third attempt.)
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect((await originRecords(tag)).filter((r) => r.headers["x-floodgate-queued-id"] === id)).toHaveLength(3);
  });

  it("retries a network error the same way", async () => {
    // The test origin drops the connection of /__hangup unanswered (the consumer delivers only to ORIGIN_URL, so
    // the failing origin is the test origin itself).
    const call = queueGateway(rules);
    const ip = uniqueIp();
    expect((await call("/__hangup", { ip })).status).toBe(502);
    const queued = await call("/__hangup", { ip });
    expect(queued.status).toBe(202);
    const location = queued.headers.get("Location")!;
    const dead = await untilState(call, location, ip, "dead_lettered", 20_000);
    expect(dead.attempts).toBe(3);
    expect(dead.origin_status).toBeUndefined();
    expect(dead.last_error).toMatch(/^the origin could not be reached/);
    const letter = await deadLetter(location.split("/").pop()!);
    expect(letter.failure.attempts).toBe(3);
  });

  it("a 4xx from the origin is an answer, not a failure: delivered, not retried", async () => {
    const call = queueGateway(rules);
    const ip = uniqueIp();
    const tag = uniqueTag("queue-404");
    await call("/status/404", { ip, headers: { "x-test-tag": tag } });
    const queued = await call("/status/404", { ip, headers: { "x-test-tag": tag } });
    const view = await untilState(call, queued.headers.get("Location")!, ip, "delivered", 10_000);
    expect(view).toMatchObject({ attempts: 1, origin_status: 404 });
    expect(await originRecords(tag)).toHaveLength(2);
  });
});
