// Admin hardening (docs/admin-api.md, "Authentication"; docs/deploy.md):
// an ADMIN_TOKEN shorter than 32 characters turns the bearer-protected
// endpoints off (503 naming why, logged once when the isolate starts) while
// the gateway goes on limiting; wrong tokens are throttled per client
// address, 10 a minute, then 429 with Retry-After, the right token included.
// Breaks tried: the length check removed (the 16-character token is then
// accepted: the 503 tests fail); the throttle's early check removed (the
// right token after the limit gets 200, not 429).
import { afterEach, describe, expect, it, vi } from "vitest";
import { AUTH_FAILURES_PER_MINUTE } from "../../src/admin/auth-throttle.ts";
import { ADMIN_TOKEN_MIN_LENGTH } from "../../src/config.ts";
import { gateway, uniqueIp } from "../support/app.ts";

const rules = {
  domain: "admin-security",
  descriptors: [{ key: "remote_address", rate_limit: { unit: "minute", requests_per_unit: 2 } }],
  routes: [{ match: { path: "/*" }, descriptors: [[{ key: "remote_address" }]] }],
};
let object = 0;
const options = () => ({ objectName: `admin-security-${++object}` });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const endpoints: [string, string, string?][] = [
  ["POST", "/__ratelimit/json", JSON.stringify({ domain: "admin-security", descriptors: [{ entries: [{ key: "remote_address", value: "192.0.2.9" }] }] })],
  ["GET", "/__ratelimit/rules"],
  ["GET", "/__ratelimit/counters?domain=admin-security&descriptor=remote_address=192.0.2.9"],
  ["GET", "/__ratelimit/metrics"],
  ["GET", "/__ratelimit/traffic"],
];

describe("an ADMIN_TOKEN shorter than 32 characters", () => {
  afterEach(() => vi.restoreAllMocks());
  const short = "dev-secret-token"; // the README's old example: 16 characters

  it("turns every bearer-protected endpoint off with a 503 problem that says why, even for that token", async () => {
    const call = gateway(rules, { ADMIN_TOKEN: short }, options());
    for (const [method, path, body] of endpoints) {
      for (const headers of [bearer(short), {}]) {
        const res = await call(path, { method, body, headers });
        expect(res.status, `${method} ${path}`).toBe(503);
        expect(res.headers.get("content-type")).toBe("application/problem+json");
        expect((await res.json<{ detail: string }>()).detail).toMatch(/ADMIN_TOKEN is shorter than 32 characters/);
      }
    }
  });

  it("is logged once, when the isolate starts, not once per request", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const call = gateway(rules, { ADMIN_TOKEN: short }, options());
    for (let i = 0; i < 3; i++) expect((await call("/__ratelimit/rules", { headers: bearer(short) })).status).toBe(503);
    const lines = logged.mock.calls.map((args) => String(args[0])).filter((line) => line.includes("ADMIN_TOKEN"));
    expect(lines).toEqual([expect.stringMatching(/^floodgate: The admin endpoints are off: ADMIN_TOKEN is shorter than 32 characters/)]);
  });

  it("leaves the gateway limiting and the health check open", async () => {
    const call = gateway(rules, { ADMIN_TOKEN: short }, options());
    const ip = uniqueIp();
    expect((await call("/__ratelimit/healthcheck")).status).toBe(200);
    expect([(await call("/a", { ip })).status, (await call("/a", { ip })).status, (await call("/a", { ip })).status]).toEqual([200, 200, 429]);
  });

  it("takes a token of exactly 32 characters, and refuses one of 31", async () => {
    expect(ADMIN_TOKEN_MIN_LENGTH).toBe(32);
    const ok = "x".repeat(32);
    expect((await gateway(rules, { ADMIN_TOKEN: ok }, options())("/__ratelimit/rules", { headers: bearer(ok) })).status).toBe(200);
    const under = "x".repeat(31);
    expect((await gateway(rules, { ADMIN_TOKEN: under }, options())("/__ratelimit/rules", { headers: bearer(under) })).status).toBe(503);
  });
});

describe("failed authentication, throttled per client address", () => {
  const token = "security-test-admin-token-0123456789";
  const call = gateway(rules, { ADMIN_TOKEN: token }, options());

  it(`answers 401 to ${AUTH_FAILURES_PER_MINUTE} wrong tokens a minute, then 429 with Retry-After, the right token included`, async () => {
    const ip = uniqueIp();
    for (let i = 0; i < AUTH_FAILURES_PER_MINUTE; i++) {
      expect((await call("/__ratelimit/metrics", { ip, headers: bearer(`guess-${i}`) })).status).toBe(401);
    }
    const over = await call("/__ratelimit/metrics", { ip, headers: bearer("guess-again") });
    expect(over.status).toBe(429);
    expect(over.headers.get("content-type")).toBe("application/problem+json");
    const retryAfter = Number(over.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect((await over.json<{ detail: string }>()).detail).toMatch(/Too many failed authentications/);
    // Guessing on learns nothing: the right token is refused alike, on every guarded endpoint.
    for (const [method, path, body] of endpoints) expect((await call(path, { method, body, ip, headers: bearer(token) })).status).toBe(429);
  });

  it("throttles the address, not everyone: another address with the right token is served", async () => {
    const ip = uniqueIp();
    for (let i = 0; i <= AUTH_FAILURES_PER_MINUTE; i++) await call("/__ratelimit/rules", { ip, headers: bearer(`guess-${i}`) });
    expect((await call("/__ratelimit/rules", { ip, headers: bearer(token) })).status).toBe(429);
    expect((await call("/__ratelimit/rules", { ip: uniqueIp(), headers: bearer(token) })).status).toBe(200);
  });

  it("is told by a fresh isolate too: the count lives in a counter object, not in one isolate", async () => {
    const ip = uniqueIp();
    for (let i = 0; i <= AUTH_FAILURES_PER_MINUTE; i++) await call("/__ratelimit/rules", { ip, headers: bearer(`guess-${i}`) });
    const other = gateway(rules, { ADMIN_TOKEN: token }, options());
    expect((await other("/__ratelimit/rules", { ip, headers: bearer("one-more-guess") })).status).toBe(429);
  });

  it("counts wrong tokens, not requests without one (those guess nothing)", async () => {
    const ip = uniqueIp();
    for (let i = 0; i < 2 * AUTH_FAILURES_PER_MINUTE; i++) expect((await call("/__ratelimit/rules", { ip })).status).toBe(401);
    expect((await call("/__ratelimit/rules", { ip, headers: bearer(token) })).status).toBe(200);
    expect((await call("/__ratelimit/rules", { ip, headers: bearer("wrong") })).status).toBe(401);
  });
});
