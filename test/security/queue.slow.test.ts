/**
 * A bounded queue (docs/on-limit.md, "Bounds", "Credentials", "Signed
 * deliveries"), with real Queues, Durable Objects and the dead-letter probe
 * of vitest.config.ts: a flood to one key gets at most `max_queue_backlog`
 * 202s; a request older than `max_queue_age_s` is dead-lettered, never
 * delivered, and frees its place; credential headers are not stored unless
 * the limit opts in, and then only sealed; every delivery is signed with
 * QUEUE_SECRET and a client's own internal headers never reach the origin;
 * `/__ratelimit/queued/<id>` is a 404 with queueing off and limited per
 * client address when on.
 *
 * Breaks tried, each seen failing: claimIn with `held > cap` (4 of the flood
 * get 202); the consumer without its expiry check (the old request is never
 * dead-lettered: the wait times out); enqueue storing `forwardHeaders` whole
 * (the dead letter holds the Authorization value); the status limit at
 * STATUS_READS_PER_MINUTE + 1 (the extra read gets 200, not 429).
 */
import { describe, expect, it } from "vitest";
import { deliver } from "../../src/queue/deliver.ts";
import { EXPIRED } from "../../src/queue/consumer.ts";
import type { QueuedMessage } from "../../src/queue/message.ts";
import { STATUS_READS_PER_MINUTE } from "../../src/queue/status-limit.ts";
import { gateway, testEnv, uniqueIp } from "../support/app.ts";
import { eventually, type OriginRecord, originRecords, uniqueTag } from "../support/origin.ts";
import { QUEUE_TEST_SECRET } from "../support/queue-bindings.ts";
import { ADMIN, untilState } from "../queue/support.ts";

let domains = 0;

/** Per-address rules whose one limit queues, with `options` on it. */
function queueing(limit: Record<string, unknown>) {
  return {
    domain: `security-queue-${++domains}`,
    descriptors: [{ key: "remote_address", rate_limit: { name: "q", ...limit, on_limit: "queue" } }],
    routes: [{ match: {}, descriptors: [[{ key: "remote_address" }]] }],
  };
}

const ONE_AN_HOUR = { unit: "hour", requests_per_unit: 1, algorithm: "token_bucket" };
const ONE_A_MINUTE = { unit: "minute", requests_per_unit: 1, algorithm: "gcra" };
const FOUR_A_SECOND = { unit: "second", requests_per_unit: 4, algorithm: "gcra", burst: 1 };

const CREDENTIALS = {
  authorization: "Bearer sk-live-credential-1",
  cookie: "sid=session-credential-2",
  "proxy-authorization": "Basic cHJveHktY3JlZGVudGlhbC0z",
  "x-api-key": "api-credential-4",
};

function queueGateway(rules: unknown, vars: Record<string, unknown> = {}) {
  return gateway(rules, { ORIGIN_URL: testEnv.TEST_ORIGIN_URL, ADMIN_TOKEN: ADMIN, ...vars });
}

/** The first request fits; the second is queued: its id. */
async function queueOne(call: ReturnType<typeof queueGateway>, init: Parameters<ReturnType<typeof queueGateway>>[1]): Promise<string> {
  expect((await call("/hook", init)).status).not.toBe(202);
  const queued = await call("/hook", init);
  expect(queued.status).toBe(202);
  return queued.headers.get("Location")!.split("/").pop()!;
}

/** The dead letter of queued request `id`, as the probe handed it to the test origin. */
async function deadLetter(id: string): Promise<QueuedMessage> {
  return eventually(
    async () => (await originRecords("dead-letters")).map((r) => JSON.parse(r.body) as QueuedMessage).find((m) => m.id === id),
    15_000,
    `dead letter ${id}`,
  );
}

/** What docs/on-limit.md's origin does: recompute the HMAC over what arrived and compare. */
async function signatureValid(record: Pick<OriginRecord, "method" | "url" | "headers">, body: Uint8Array, secret: string): Promise<boolean> {
  const hex = (buffer: ArrayBuffer) => [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, "0")).join("");
  const h = record.headers;
  const credentials = ["authorization", "proxy-authorization", "cookie", "x-api-key", "x-auth-token"].map((name) => h[name] ?? "").join("\n");
  const canonical = [
    "v2",
    record.method,
    h.host,
    record.url,
    h["x-floodgate-queued-id"],
    h["x-floodgate-attempt"],
    h["x-floodgate-timestamp"],
    hex(await crypto.subtle.digest("SHA-256", body)),
    hex(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(credentials))),
  ].join("\n");
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
  const given = /^v2=([0-9a-f]{64})$/.exec(h["x-floodgate-signature"] ?? "");
  if (given === null) return false;
  const mac = new Uint8Array(given[1].match(/../g)!.map((x) => parseInt(x, 16)));
  return crypto.subtle.verify("HMAC", key, mac, new TextEncoder().encode(canonical));
}

describe("the backlog of one key is bounded", () => {
  it("a flood gets one 200, max_queue_backlog 202s and 429s for the rest", async () => {
    const call = queueGateway(queueing({ ...ONE_AN_HOUR, max_queue_backlog: 3 }));
    const ip = uniqueIp();
    const responses = await Promise.all(Array.from({ length: 10 }, (_, i) => call(`/flood/${i}`, { ip, method: "POST", body: String(i) })));
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 202, 202, 202, 429, 429, 429, 429, 429, 429]);
    for (const refused of responses.filter((r) => r.status === 429)) {
      expect(refused.headers.get("Location")).toBeNull();
      expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(0);
    }
    // Another key has its own backlog.
    const other = uniqueIp();
    expect([(await call("/flood", { ip: other })).status, (await call("/flood", { ip: other })).status]).toEqual([200, 202]);
  });
});

describe("max_queue_age_s", () => {
  it("a request older than its maximum age goes to the dead-letter queue, never to the origin, and frees its place", async () => {
    // Its slot is a minute away, its maximum age one second: it expires while it waits.
    const call = queueGateway(queueing({ ...ONE_A_MINUTE, max_queue_age_s: 1, max_queue_backlog: 1 }));
    const ip = uniqueIp();
    const tag = uniqueTag("security-expiry");
    const id = await queueOne(call, { ip, method: "POST", body: "late", headers: { "x-test-tag": tag } });
    // The one place is taken.
    expect((await call("/hook", { ip, headers: { "x-test-tag": tag } })).status).toBe(429);

    const letter = await deadLetter(id);
    expect(letter.failure).toEqual({ attempts: 0, error: EXPIRED });
    const view = await untilState(call, `/__ratelimit/queued/${id}`, ip, "dead_lettered", 10_000);
    expect(view.attempts).toBe(0);
    expect((await originRecords(tag)).filter((r) => r.headers["x-floodgate-queued-id"] === id)).toEqual([]);
    // Dead-lettered, it no longer holds the key's place.
    expect((await call("/hook", { ip })).status).toBe(202);
  });
});

describe("credential headers in the queue", () => {
  it("are not stored (nor delivered) unless the limit opts in", async () => {
    const call = queueGateway(queueing({ ...ONE_A_MINUTE, max_queue_age_s: 1 }));
    const id = await queueOne(call, { ip: uniqueIp(), headers: { ...CREDENTIALS, "x-kept": "yes" } });
    const letter = await deadLetter(id);
    const names = letter.request.headers.map(([name]) => name);
    expect(names).toContain("x-kept");
    for (const name of Object.keys(CREDENTIALS)) expect(names, name).not.toContain(name);
    expect(letter.credentials).toBeUndefined();
    const stored = JSON.stringify(letter);
    for (const value of Object.values(CREDENTIALS)) expect(stored).not.toContain(value);
  });

  it("with queue_credentials: true, are stored only sealed", async () => {
    const call = queueGateway(queueing({ ...ONE_A_MINUTE, max_queue_age_s: 1, queue_credentials: true }));
    const id = await queueOne(call, { ip: uniqueIp(), headers: CREDENTIALS });
    const letter = await deadLetter(id);
    expect(letter.credentials).toMatchObject({ iv: expect.any(String), data: expect.any(String) });
    const stored = JSON.stringify(letter);
    for (const value of Object.values(CREDENTIALS)) expect(stored).not.toContain(value);
    for (const name of Object.keys(CREDENTIALS)) expect(letter.request.headers.map(([n]) => n)).not.toContain(name);
  });

  it("with queue_credentials: true, are delivered to the origin as they were sent", async () => {
    const call = queueGateway(queueing({ ...FOUR_A_SECOND, queue_credentials: true }));
    const ip = uniqueIp();
    const tag = uniqueTag("security-credentials");
    const id = await queueOne(call, { ip, headers: { ...CREDENTIALS, "x-test-tag": tag } });
    await untilState(call, `/__ratelimit/queued/${id}`, ip, "delivered", 15_000);
    const [record] = (await originRecords(tag)).filter((r) => r.headers["x-floodgate-queued-id"] === id);
    for (const [name, value] of Object.entries(CREDENTIALS)) expect(record.headers[name], name).toBe(value);
  });

  it("with queue_credentials: true and no QUEUE_SECRET, the request is refused with 429, not stored in the clear", async () => {
    const call = queueGateway(queueing({ ...ONE_AN_HOUR, queue_credentials: true }), { QUEUE_SECRET: undefined });
    const ip = uniqueIp();
    expect((await call("/hook", { ip, headers: CREDENTIALS })).status).toBe(200);
    const refused = await call("/hook", { ip, headers: CREDENTIALS });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("Location")).toBeNull();
  });
});

describe("queue_credentials without QUEUE_SECRET", () => {
  it("is refused by PUT /__ratelimit/rules with the path of each, the rules in force unchanged", async () => {
    const rules = queueing({ ...ONE_AN_HOUR, queue_credentials: true });
    const call = queueGateway(rules, { QUEUE_SECRET: undefined });
    const res = await call("/__ratelimit/rules", { method: "PUT", headers: { authorization: `Bearer ${ADMIN}` }, body: JSON.stringify(rules) });
    expect(res.status).toBe(400);
    const body = await res.json<{ errors: { path: string; message: string }[] }>();
    expect(body.errors).toEqual([{ path: "$.descriptors[0].rate_limit.queue_credentials", message: expect.stringMatching(/QUEUE_SECRET/) }]);
  });
});

describe("deliveries are floodgate's own", () => {
  it("carry floodgate's id, attempt and a signature that verifies with QUEUE_SECRET, whatever the client forged", async () => {
    const call = queueGateway(queueing(FOUR_A_SECOND));
    const ip = uniqueIp();
    const tag = uniqueTag("security-signature");
    const forged = {
      "x-test-tag": tag,
      "X-Floodgate-Queued-Id": "00000000-0000-4000-8000-000000000000",
      "X-Floodgate-Attempt": "7",
      "X-Floodgate-Signature": "v1=forged",
      "X-Floodgate-Timestamp": "1",
      "X-RateLimit-Decision": "allowed",
    };
    await call("/signed?x=1", { ip, method: "POST", body: "first", headers: forged });
    const queued = await call("/signed?x=1", { ip, method: "POST", body: '{"amount":100}', headers: forged });
    expect(queued.status).toBe(202);
    const id = queued.headers.get("Location")!.split("/").pop()!;
    await untilState(call, `/__ratelimit/queued/${id}`, ip, "delivered", 15_000);
    const records = await originRecords(tag);
    // The live one: none of the forged headers.
    const live = records.find((r) => r.body === "first")!;
    for (const name of Object.keys(forged).filter((n) => n !== "x-test-tag")) expect(live.headers[name.toLowerCase()], name).toBeUndefined();
    const [delivered] = records.filter((r) => r.body === '{"amount":100}');
    expect(delivered.headers["x-floodgate-queued-id"]).toBe(id);
    expect(delivered.headers["x-floodgate-attempt"]).toBe("1");
    expect(delivered.headers["x-ratelimit-decision"]).toBeUndefined();
    const body = new TextEncoder().encode(delivered.body);
    expect(await signatureValid(delivered, body, QUEUE_TEST_SECRET)).toBe(true);
    // A changed body, path, id or key does not verify.
    expect(await signatureValid(delivered, new TextEncoder().encode('{"amount":900}'), QUEUE_TEST_SECRET)).toBe(false);
    expect(await signatureValid({ ...delivered, url: "/signed?x=2" }, body, QUEUE_TEST_SECRET)).toBe(false);
    expect(await signatureValid(delivered, body, `${QUEUE_TEST_SECRET}x`)).toBe(false);
  });

  it("without QUEUE_SECRET there is no signature header at all (nothing an origin could mistake for one)", async () => {
    const tag = uniqueTag("security-unsigned");
    const message: QueuedMessage = {
      v: 1,
      id: crypto.randomUUID(),
      queuedAt: Date.now(),
      request: { method: "POST", path: "/u", target: `${testEnv.TEST_ORIGIN_URL}/u`, headers: [["x-test-tag", tag]], body: null },
      pace: [],
    };
    expect(await deliver(message, 1)).toEqual({ delivered: true, status: 200 });
    const [record] = await originRecords(tag);
    expect(record.headers["x-floodgate-queued-id"]).toBe(message.id);
    expect(record.headers["x-floodgate-signature"]).toBeUndefined();
    expect(record.headers["x-floodgate-timestamp"]).toBeUndefined();
  });
});

describe("GET /__ratelimit/queued/<id>", () => {
  it("is a 404 when no rule queues, even for an id that was queued", async () => {
    const ip = uniqueIp();
    const id = await queueOne(queueGateway(queueing(ONE_AN_HOUR)), { ip });
    const plain = {
      domain: `security-queue-off-${++domains}`,
      descriptors: [{ key: "remote_address", rate_limit: { unit: "hour", requests_per_unit: 1 } }],
      routes: [{ match: {}, descriptors: [[{ key: "remote_address" }]] }],
    };
    const off = queueGateway(plain);
    for (const init of [{ ip }, { ip, headers: { authorization: `Bearer ${ADMIN}` } }]) {
      const res = await off(`/__ratelimit/queued/${id}`, init);
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toBe("application/problem+json");
    }
  });

  it(`is limited to ${STATUS_READS_PER_MINUTE} reads a minute per client address when on (not for the admin)`, async () => {
    const call = queueGateway(queueing(ONE_AN_HOUR));
    const ip = uniqueIp();
    const location = `/__ratelimit/queued/${await queueOne(call, { ip })}`;
    const statuses = new Set<number>();
    for (let i = 0; i < STATUS_READS_PER_MINUTE; i++) statuses.add((await call(location, { ip })).status);
    expect([...statuses]).toEqual([200]);
    const over = await call(location, { ip });
    expect(over.status).toBe(429);
    expect(Number(over.headers.get("Retry-After"))).toBeGreaterThan(0);
    // Unknown ids count too: a scan is limited the same way.
    expect((await call("/__ratelimit/queued/00000000-0000-4000-8000-000000000000", { ip })).status).toBe(429);
    // Other addresses have their own reads; the admin is not limited.
    expect((await call(location, { ip: uniqueIp() })).status).toBe(403);
    expect((await call(location, { ip, headers: { authorization: `Bearer ${ADMIN}` } })).status).toBe(200);
  });
});
