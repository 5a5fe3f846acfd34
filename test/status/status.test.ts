/**
 * GET /__ratelimit/status (docs/admin-api.md, "Status") through the real
 * gateway and real counter objects, on a clock the test drives (objects
 * included), so reset times compare exactly.
 *
 * Breaks tried (each failed the test named):
 * - reading at cost 1 instead of 0 (the `costs` map in src/admin/quota-status.ts):
 *   "spends nothing" and "equals what the next real request sees";
 * - no per-client limit (the `limitReads` call removed): "is limited per client address";
 * - the as-if request given the query inside `path` as headers:
 *   "never reveals another caller's counter";
 * - the method check removed from src/admin/status-query.ts: "answers 400…".
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { QUOTA_STATUS_READS_PER_MINUTE } from "../../src/admin/quota-status.ts";
import type { Env } from "../../src/config.ts";
import { gateway, uniqueIp } from "../support/app.ts";
import { drivenCounters, OBJECT_EPOCH } from "../support/driven-object.ts";

const rules = {
  domain: "st",
  descriptors: [
    { key: "remote_address", rate_limit: { name: "per-ip", unit: "minute", requests_per_unit: 5, algorithm: "fixed_window" } },
    { key: "remote_address", value: "192.0.2.250", rate_limit: { name: "banned", unit: "minute", requests_per_unit: 0 } },
    { key: "api_key", rate_limit: { name: "per-key", unit: "hour", requests_per_unit: 3, algorithm: "sliding_window_counter" } },
  ],
  routes: [{ match: { path: "/api/*" }, descriptors: [[{ key: "remote_address" }], [{ key: "api_key", header: "x-api-key" }]] }],
};

interface Policy {
  name: string;
  limit: number;
  remaining: number;
  reset_after_s: number;
  window_s: number;
}

function drivenGateway(vars: Partial<Env> = {}) {
  // A random instant at least 1 s after a minute begins and 9 s before it ends, never in an hour's last minute:
  // a test's few driven seconds never cross a window edge (per-ip is a minute's, per-key an hour's).
  const hour = Math.ceil((OBJECT_EPOCH + Math.floor(Math.random() * 1e9)) / 3_600_000) * 3_600_000;
  const clock = { at: hour + Math.floor(Math.random() * 59) * 60_000 + 1_000 + Math.floor(Math.random() * 50_000) };
  const now = () => clock.at;
  const counters = drivenCounters((env as unknown as Env).COUNTERS, now);
  return { clock, call: gateway(rules, { COUNTERS: counters, ...vars }, { now, coalesce: false }) };
}

const statusOf = async (response: Response) => {
  expect(response.status).toBe(200);
  return (await response.json<{ policies: Policy[] }>()).policies;
};

describe("GET /__ratelimit/status", () => {
  it("equals what the next real request sees: remaining (one less after it) and reset, per policy and in the headers", async () => {
    const { call, clock } = drivenGateway();
    const ip = uniqueIp();
    const key = `k-${Math.random()}`;
    const headers = { "x-api-key": key };
    await call("/api/a", { ip, headers });
    clock.at += 1_500;
    const status = await call("/__ratelimit/status?method=GET&path=/api/x", { ip, headers });
    const policies = await statusOf(status);
    expect(policies).toEqual([
      { name: "per-ip", limit: 5, remaining: 4, reset_after_s: expect.any(Number), window_s: 60 },
      { name: "per-key", limit: 3, remaining: 2, reset_after_s: expect.any(Number), window_s: 3600 },
    ]);
    // The headers of the configured dialect, from the one renderer: the most restrictive policy.
    expect(status.headers.get("X-RateLimit-Remaining")).toBe("2");
    expect(status.headers.get("X-RateLimit-Limit")).toBe("3");
    expect(status.headers.get("RateLimit")).toContain('"per-key";r=2');
    expect(status.headers.get("Cache-Control")).toBe("no-store");
    const real = await call("/api/x", { ip, headers });
    expect(real.status).toBe(200);
    expect(real.headers.get("X-RateLimit-Remaining")).toBe(String(policies[1].remaining - 1));
    expect(real.headers.get("X-RateLimit-Reset")).toBe(String(policies[1].reset_after_s));
    // Every policy of the real request, as the draft-11 list gives it: remaining one less (its `t` is an
    // effective window, which spending changes, not a reset: docs/headers.md).
    const listed = real.headers.get("RateLimit") ?? "";
    for (const p of policies) expect(listed).toContain(`"${p.name}";r=${p.remaining - 1};`);
    // A fixed window's reset does not move with a hit: the status after it gives the reset the real request had.
    const after = await statusOf(await call("/__ratelimit/status?method=GET&path=/api/x", { ip, headers }));
    expect(after.map((p) => p.remaining)).toEqual([3, 1]);
    expect(after[0].reset_after_s).toBe(policies[0].reset_after_s);
  });

  it("spends nothing: after many status reads the real requests still get exactly the limit", async () => {
    const { call } = drivenGateway();
    const ip = uniqueIp();
    for (let i = 0; i < 20; i++) {
      const [perIp] = await statusOf(await call("/__ratelimit/status?method=GET&path=/api/x", { ip }));
      expect(perIp.remaining).toBe(5);
    }
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await call("/api/x", { ip })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    // Over the limit, the status says so and still spends nothing.
    const [perIp] = await statusOf(await call("/__ratelimit/status?method=GET&path=/api/x", { ip }));
    expect(perIp.remaining).toBe(0);
    expect(perIp.reset_after_s).toBeGreaterThan(0);
  });

  it("reads a limit of 0 as 0 left, with a 200 and no Retry-After: a status is never a refusal", async () => {
    const { call } = drivenGateway();
    const res = await call("/__ratelimit/status?method=GET&path=/api/x", { ip: "192.0.2.250" });
    expect((await statusOf(res)).map((p) => [p.name, p.limit, p.remaining])).toEqual([["banned", 0, 0]]);
    expect(res.headers.get("X-RateLimit-Remaining")).toBe("0");
    expect(res.headers.get("Retry-After")).toBeNull();
    expect(res.headers.get("X-RateLimit-Retry-After")).toBeNull();
  });

  it("answers for the route asked: a path no route matches has no policies", async () => {
    const { call } = drivenGateway();
    expect(await statusOf(await call("/__ratelimit/status?method=GET&path=/elsewhere", { ip: uniqueIp() }))).toEqual([]);
  });

  it(`is limited per client address (${QUOTA_STATUS_READS_PER_MINUTE} reads a minute), apart from the rules' counters`, async () => {
    const { call } = drivenGateway();
    const ip = uniqueIp();
    for (let i = 0; i < QUOTA_STATUS_READS_PER_MINUTE; i++) expect((await call("/__ratelimit/status?method=GET&path=/api/x", { ip })).status).toBe(200);
    const refused = await call("/__ratelimit/status?method=GET&path=/api/x", { ip });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect((await refused.json<{ policy: string }>()).policy).toBe("quota-status");
    // Another address is not held back, and the rules' own counter was never touched.
    expect((await call("/__ratelimit/status?method=GET&path=/api/x", { ip: uniqueIp() })).status).toBe(200);
    expect((await call("/api/x", { ip })).headers.get("X-RateLimit-Remaining")).toBe("4");
  });

  it("never reveals another caller's counter: only the caller's own header keys, whatever the query says", async () => {
    const { call } = drivenGateway();
    const victim = `victim-${Math.random()}`;
    const mine = `mine-${Math.random()}`;
    for (let i = 0; i < 2; i++) await call("/api/x", { ip: uniqueIp(), headers: { "x-api-key": victim } });
    const ip = uniqueIp();
    const ask = async (query: string, headers: Record<string, string> = { "x-api-key": mine }) => call(`/__ratelimit/status?${query}`, { ip, headers });
    // This endpoint's own parameters name nothing: any other than method and path is refused.
    for (const extra of [`x-api-key=${victim}`, `api_key=${victim}`, `descriptor=api_key=${victim}`, "domain=st"]) {
      const res = await ask(`method=GET&path=/api/x&${extra}`);
      expect(res.status).toBe(400);
      expect((await res.json<{ detail: string }>()).detail).toMatch(/only method and path/);
    }
    // A query inside the path is the path's, as a real request's: it sets no header.
    const viaPath = await statusOf(await ask(`method=GET&path=${encodeURIComponent(`/api/x?x-api-key=${victim}&api_key=${victim}`)}`));
    expect(viaPath.find((p) => p.name === "per-key")?.remaining).toBe(3);
    const keylessViaPath = await statusOf(await ask(`method=GET&path=${encodeURIComponent(`/api/x?x-api-key=${victim}`)}`, {}));
    expect(keylessViaPath.map((p) => p.name)).toEqual(["per-ip"]);
    // Without the header, no counter keyed on it is read at all.
    const keyless = await statusOf(await ask(`method=GET&path=/api/x&`, {}));
    expect(keyless.map((p) => p.name)).toEqual(["per-ip"]);
    // The victim, asking with its own header, sees its own.
    const own = await statusOf(await call("/__ratelimit/status?method=GET&path=/api/x", { ip: uniqueIp(), headers: { "x-api-key": victim } }));
    expect(own.find((p) => p.name === "per-key")?.remaining).toBe(1);
  });

  it("answers 400 naming what is wrong for a missing, repeated or invalid method or path", async () => {
    const { call } = drivenGateway();
    const cases: [string, RegExp][] = [
      ["path=/api/x", /method is required/],
      ["method=GET", /path is required/],
      ["method=GET&method=POST&path=/api/x", /method is given more than once/],
      ["method=GET&path=/a&path=/b", /path is given more than once/],
      ["method=TRACE&path=/api/x", /method must be one of GET, HEAD, POST/],
      ["method=get&path=/api/x", /method must be one of/],
      ["method=GET&path=api/x", /path must start with "\/"/],
      ["method=GET&path=https://evil.test/api/x", /path must start with "\/"/],
      [`method=GET&path=/${"a".repeat(2048)}`, /at most 2048/],
      ["method=GET&path=/api/x%20y", /printable ASCII/],
      ["method=GET&path=/api/x%23frag", /fragment/],
      ["method=GET&path=/__ratelimit/rules", /floodgate endpoint/],
      ["method=GET&path=//__RATELIMIT/rules", /floodgate endpoint/],
    ];
    for (const [query, detail] of cases) {
      const res = await call(`/__ratelimit/status?${query}`, { ip: uniqueIp() });
      expect([query, res.status]).toEqual([query, 400]);
      expect((await res.json<{ detail: string }>()).detail).toMatch(detail);
    }
    // A malformed client address is the caller's error too, and other methods are 405 (not the admin API's 401).
    expect((await call("/__ratelimit/status?method=GET&path=/api/x", { headers: { "cf-connecting-ip": "not-an-ip" } })).status).toBe(400);
    const post = await call("/__ratelimit/status?method=GET&path=/api/x", { method: "POST", ip: uniqueIp() });
    expect(post.status).toBe(405);
    expect(post.headers.get("Allow")).toBe("GET, HEAD");
  });

  it("needs no token, with or without ADMIN_TOKEN set", async () => {
    for (const token of [undefined, "s3cret-admin-token-for-tests-0123456789"]) {
      const { call } = drivenGateway({ ADMIN_TOKEN: token });
      expect((await call("/__ratelimit/status?method=GET&path=/api/x", { ip: uniqueIp() })).status).toBe(200);
    }
  });
});
