/**
 * `rateLimitedFetch` against the running gateway (in workerd, the client's
 * `fetch` option calls the app directly): it never sends before the
 * `Retry-After` it was given, pre-throttles from the `RateLimit` header,
 * re-sends bodies intact, and gives up after its budget with a RateLimitError.
 * One driven clock per test: the client's clock and sleep, the gateway's
 * isolate and the client's counter object all read `clock.at`, which moves
 * only when the client sleeps (by exactly what it sleeps).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { rateLimitedFetch, RateLimitError, Throttle } from "../../src/client/index.ts";
import type { Env } from "../../src/config.ts";
import { gateway, uniqueIp } from "../support/app.ts";
import { driveObject, OBJECT_EPOCH } from "../support/driven-object.ts";

let domains = 0;
const rules = (rateLimit: Record<string, unknown>) => ({
  domain: `client-${++domains}`,
  placement: "per_key",
  descriptors: [{ key: "remote_address", rate_limit: { name: "api", ...rateLimit } }],
  routes: [{ match: {}, descriptors: [[{ key: "remote_address" }]] }],
});

/**
 * A client IP's gateway on one driven clock (starting on a whole second, so
 * fixed windows begin with the test), and the client's clock and sleep on it.
 */
async function onOneClock(rateLimit: Record<string, unknown>) {
  const r = rules(rateLimit);
  const ip = uniqueIp();
  const clock = { at: OBJECT_EPOCH };
  const owner = (env as unknown as Env).COUNTERS.getByName(`${r.domain}/key/${JSON.stringify([r.domain, ["remote_address", ip]])}`);
  await driveObject(owner, () => clock.at);
  const call = gateway(r, {}, { now: () => clock.at });
  const now = () => clock.at;
  const sleep = async (ms: number) => void (clock.at += ms);
  return { clock, ip, call, now, sleep };
}

/** A fetch into the gateway as one client IP, recording on the driven clock when each request was sent and each answer came back. */
function recordedFetch(call: ReturnType<typeof gateway>, ip: string, now: () => number) {
  const log: { sentAt: number; receivedAt: number; status: number; retryAfter: number | null; body: string }[] = [];
  async function send(request: Request): Promise<Response> {
    const sentAt = now();
    const url = new URL(request.url);
    const body = request.method === "GET" ? "" : await request.text();
    const response = await call(url.pathname + url.search, { ip, method: request.method, headers: request.headers, ...(body ? { body } : {}) });
    const retryAfter = response.headers.get("Retry-After");
    log.push({ sentAt, receivedAt: now(), status: response.status, retryAfter: retryAfter === null ? null : Number(retryAfter), body });
    return response;
  }
  return { send, log };
}

/** The RateLimitError a call rejects with (failing the test if it resolves or rejects otherwise). */
async function refusal(call: Promise<Response>): Promise<RateLimitError> {
  const outcome = await call.then(
    (response) => response,
    (error: unknown) => error,
  );
  expect(outcome).toBeInstanceOf(RateLimitError);
  return outcome as RateLimitError;
}

// Break tried: the client sleeping half of each wait (src/client/index.ts): the first three tests fail.
describe("floodgate/client against the gateway", () => {
  it("never sends before the Retry-After it was given, and re-sends the body intact", async () => {
    const { call, ip, now, sleep } = await onOneClock({ unit: "second", requests_per_unit: 2, algorithm: "fixed_window" });
    const { send, log } = recordedFetch(call, ip, now);
    const options = { fetch: send, throttle: new Throttle(), preThrottle: false, maxRetries: 5, baseDelayMs: 100, now, sleep };
    for (let i = 0; i < 5; i++) {
      const response = await rateLimitedFetch(`http://gateway.test/report/${i}`, { method: "POST", body: `row ${i}` }, options);
      expect(response.status).toBe(200);
    }
    const refused = log.filter((entry) => entry.status === 429);
    expect(refused.length).toBeGreaterThan(0); // 5 at 2 a second: without pre-throttling some are refused
    for (let i = 0; i < log.length - 1; i++) {
      if (log[i].status !== 429) continue;
      // The next send is at least Retry-After (whole seconds) after the refusal arrived.
      expect(log[i + 1].sentAt - log[i].receivedAt).toBeGreaterThanOrEqual(log[i].retryAfter! * 1000);
      expect(log[i + 1].body).toBe(log[i].body);
    }
    expect(log.filter((e) => e.status === 200).map((e) => e.body)).toEqual([0, 1, 2, 3, 4].map((i) => `row ${i}`));
  });

  it("pre-throttles from the RateLimit header: a spent quota is waited out, so nothing is refused", async () => {
    const { call, ip, now, sleep } = await onOneClock({ unit: "second", requests_per_unit: 2, algorithm: "fixed_window" });
    const { send, log } = recordedFetch(call, ip, now);
    const waits: number[] = [];
    const events: string[] = [];
    const sendLogged = (request: Request) => {
      events.push("send");
      return send(request);
    };
    const onWait = (w: { ms: number; reason: string }) => {
      waits.push(w.ms);
      events.push(`wait:${w.reason}`);
    };
    const options = { fetch: sendLogged, throttle: new Throttle(), onWait, now, sleep };
    for (let i = 0; i < 4; i++) expect((await rateLimitedFetch("http://gateway.test/items", undefined, options)).status).toBe(200);
    expect(log.map((e) => e.status)).toEqual([200, 200, 200, 200]);
    // The second answer says the quota is spent: the client waits for the window's reset before the third, once.
    expect(events).toEqual(["send", "send", "wait:pre-throttle", "send", "send"]);
    // The window began with the test and the clock stood still until then: its whole second is left.
    expect(waits).toEqual([1000]);
  });

  it("gives up after its retry budget with a RateLimitError, each retry after the Retry-After", async () => {
    const { call, ip, now, sleep } = await onOneClock({ unit: "second", requests_per_unit: 0 }); // never fits: Retry-After 1
    const { send, log } = recordedFetch(call, ip, now);
    const error = await refusal(
      rateLimitedFetch("http://gateway.test/never", undefined, { fetch: send, throttle: new Throttle(), maxRetries: 2, baseDelayMs: 50, now, sleep }),
    );
    expect(error.name).toBe("RateLimitError");
    expect(error.attempts).toBe(3);
    expect(error.response?.status).toBe(429);
    expect(error.retryAfterMs).toBe(1000);
    expect(error.message).toBe("GET http://gateway.test/never: still 429 after 3 attempts (retry budget: 2 retries)");
    expect(log).toHaveLength(3);
    for (let i = 1; i < log.length; i++) expect(log[i].sentAt - log[i - 1].receivedAt).toBeGreaterThanOrEqual(1000);
  });

  it("gives up at once when the server's wait passes the wait budget, and then sends nothing until it is over", async () => {
    const call = gateway(rules({ unit: "minute", requests_per_unit: 1 }));
    const { send, log } = recordedFetch(call, uniqueIp(), Date.now);
    const throttle = new Throttle();
    // Every wait the client makes goes through its sleep: none may happen.
    const sleeps: number[] = [];
    const sleep = async (ms: number) => void sleeps.push(ms);
    const options = { fetch: send, throttle, maxWaitMs: 5_000, sleep };
    expect((await rateLimitedFetch("http://gateway.test/slow", undefined, options)).status).toBe(200);
    const first = await refusal(rateLimitedFetch("http://gateway.test/slow", undefined, options));
    expect(first.attempts).toBe(1);
    expect(first.retryAfterMs).toBeGreaterThan(5_000);
    expect(sleeps).toEqual([]); // no pointless waiting
    // The next call knows the server's Retry-After has not passed: it gives up without sending.
    const second = await refusal(rateLimitedFetch("http://gateway.test/slow", undefined, options));
    expect(second.attempts).toBe(0);
    expect(second.response).toBeUndefined();
    expect(log).toHaveLength(2);
    expect(sleeps).toEqual([]);
  });

  it("an abort during a wait rejects with the abort reason", async () => {
    const call = gateway(rules({ unit: "second", requests_per_unit: 0 }));
    const { send } = recordedFetch(call, uniqueIp(), Date.now);
    // A real timer and the client's own sleep: no time is asserted, only that the abort ends the wait.
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("stop")), 100);
    await expect(rateLimitedFetch("http://gateway.test/x", { signal: controller.signal }, { fetch: send, throttle: new Throttle() })).rejects.toThrow("stop");
  });
});
