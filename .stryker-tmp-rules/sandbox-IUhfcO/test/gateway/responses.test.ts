// @ts-nocheck
import { describe, expect, it } from "vitest";
import { gateway, testEnv, uniqueIp } from "../support/app.ts";

const rules = {
  domain: "gw-responses",
  descriptors: [
    { key: "remote_address", rate_limit: { unit: "minute", requests_per_unit: 3 } },
    { key: "api_key", value: "blocked", rate_limit: { unit: "second", requests_per_unit: 0 } },
    { key: "api_key", rate_limit: { unit: "hour", requests_per_unit: 1000, name: "per-key" } },
    { key: "path", value: "/open" },
  ],
  routes: [
    { match: { path: "/open" }, descriptors: [[{ key: "path", value: "/open" }]] },
    { match: { path: "/keyed/*" }, descriptors: [[{ key: "api_key", header: "x-api-key" }]] },
    { match: { path: "/*" }, descriptors: [[{ key: "remote_address" }]] },
  ],
};

describe("responses to limited requests (docs/headers.md)", () => {
  const call = gateway(rules);

  it("adds X-RateLimit-* and IETF RateLimit headers to an allowed request", async () => {
    const ip = uniqueIp();
    const res = await call("/anything", { ip });
    expect(res.status).toBe(200);
    expect(res.headers.get("X-RateLimit-Limit")).toBe("3");
    expect(res.headers.get("X-RateLimit-Remaining")).toBe("2");
    const reset = Number(res.headers.get("X-RateLimit-Reset"));
    expect(reset).toBeGreaterThanOrEqual(1);
    expect(reset).toBeLessThanOrEqual(120);
    const policy = res.headers.get("RateLimit-Policy")!;
    expect(policy).toMatch(/^"[^"]+";q=3;w=60$/);
    const name = policy.slice(0, policy.indexOf(";"));
    // t is draft-11's effective window, not the reset: spending the 2 left fills this minute's
    // window (3), and one more fits once the next window is a third gone and the weighted 3
    // has decayed to 2, 80 s after this window began; the reset comes at 120 s.
    expect(res.headers.get("RateLimit")).toBe(`${name};r=2;t=${reset - 40}`);
    expect(res.headers.get("Retry-After")).toBeNull();
    const body = await res.json<{ echo: { path: string }; rate_limit: { remaining: number } }>();
    expect(body.echo.path).toBe("/anything");
    expect(body.rate_limit.remaining).toBe(2);
  });

  it("answers 429 problem+json with Retry-After once the limit is spent", async () => {
    const ip = uniqueIp();
    for (let i = 0; i < 3; i++) expect((await call("/x", { ip })).status).toBe(200);
    const res = await call("/x", { ip });
    expect(res.status).toBe(429);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    const policy = res.headers.get("RateLimit-Policy")!;
    const name = JSON.parse(policy.slice(0, policy.indexOf(";")));
    const retryAfter = Number(res.headers.get("Retry-After"));
    // Sliding window counter: the spent window still weighs on the next one, so up to two windows.
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(120);
    expect(Number(res.headers.get("X-RateLimit-Reset"))).toBeGreaterThanOrEqual(retryAfter);
    expect(res.headers.get("X-RateLimit-Retry-After")).toBe(String(retryAfter));
    expect(res.headers.get("X-RateLimit-Remaining")).toBe("0");
    expect(res.headers.get("X-RateLimit-Limit")).toBe("3");
    const body = await res.json<Record<string, unknown>>();
    expect(body.status).toBe(429);
    expect(body.type).toBe("https://iana.org/assignments/http-problem-types#quota-exceeded");
    expect(body["violated-policies"]).toEqual([name]);
    expect(body.title).toBe("Too Many Requests");
    expect(body.detail).toMatch(/3 requests per 60 s/);
    expect(body.retry_after).toBe(retryAfter);
  });

  it("does not forward a rejected request to the origin", async () => {
    const forwarding = gateway(rules, { ORIGIN_URL: testEnv.TEST_ORIGIN_URL });
    const ip = uniqueIp();
    for (let i = 0; i < 3; i++) expect((await forwarding("/y", { ip })).headers.get("x-test-origin")).toBe("yes");
    const res = await forwarding("/y", { ip });
    expect(res.status).toBe(429);
    expect(res.headers.get("x-test-origin")).toBeNull();
  });

  it("always rejects a requests_per_unit 0 descriptor and never lets it through later", async () => {
    for (let i = 0; i < 2; i++) {
      const res = await call("/keyed/a", { headers: { "x-api-key": "blocked" } });
      expect(res.status).toBe(429);
      expect(Number(res.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
    }
    const other = await call("/keyed/a", { headers: { "x-api-key": "fine" } });
    expect(other.status).toBe(200);
    expect(other.headers.get("RateLimit-Policy")).toBe('"per-key";q=1000;w=3600');
  });

  it("skips a descriptor whose header is absent (no limit applies)", async () => {
    const res = await call("/keyed/a");
    expect(res.status).toBe(200);
    expect(res.headers.get("X-RateLimit-Limit")).toBeNull();
  });

  it("lets whitelisted descriptors through with no rate-limit headers", async () => {
    const ip = uniqueIp();
    for (let i = 0; i < 5; i++) {
      const res = await call("/open", { ip });
      expect(res.status).toBe(200);
      expect(res.headers.get("X-RateLimit-Limit")).toBeNull();
    }
  });

  it("serves the health check and never forwards /__ratelimit/ paths", async () => {
    const forwarding = gateway(rules, { ORIGIN_URL: testEnv.TEST_ORIGIN_URL });
    const health = await forwarding("/__ratelimit/healthcheck");
    expect(health.status).toBe(200);
    expect(await health.text()).toBe("OK");
    const other = await forwarding("/__ratelimit/anything?x=1", { method: "POST", body: "x" });
    expect(other.status).toBe(404);
    expect(other.headers.get("content-type")).toBe("application/problem+json");
    expect(other.headers.get("x-test-origin")).toBeNull();
  });
});

describe("client identity", () => {
  const call = gateway(rules);

  it("keys requests without CF-Connecting-IP together as 'unknown' instead of leaving them unlimited", async () => {
    const res = await call("/no-ip", { ip: null });
    expect(res.status).toBe(200);
    expect(res.headers.get("X-RateLimit-Limit")).toBe("3");
    // Several clients without the header share one counter (a domain of its own, so it starts full).
    const shared = gateway({ ...rules, domain: "gw-responses-unknown" });
    const remaining = [];
    for (let i = 0; i < 3; i++) remaining.push((await shared(`/no-ip-${i}`, { ip: null })).headers.get("X-RateLimit-Remaining"));
    expect(remaining).toEqual(["2", "1", "0"]);
    expect((await shared("/no-ip-3", { ip: null })).status).toBe(429);
    expect((await shared("/no-ip-4", { ip: uniqueIp() })).status).toBe(200);
  });

  it("answers 400 problem+json for a malformed client IP, never 500", async () => {
    const res = await call("/x", { headers: { "cf-connecting-ip": "not-an-ip" } });
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect((await res.json<{ detail: string }>()).detail).toMatch(/CF-Connecting-IP/);
  });

  it("counts IPv6 clients per /64", async () => {
    const a = await call("/v6", { ip: "2001:db8:aa:bb:1::1" });
    const b = await call("/v6", { ip: "2001:db8:aa:bb:ffff:ffff:ffff:ffff" });
    const c = await call("/v6", { ip: "2001:db8:aa:bc::1" });
    expect(a.headers.get("X-RateLimit-Remaining")).toBe("2");
    expect(b.headers.get("X-RateLimit-Remaining")).toBe("1");
    expect(c.headers.get("X-RateLimit-Remaining")).toBe("2");
  });
});
