/**
 * `rateLimit()` in a Hono app of the user's own: the gateway's paths
 * outside /__ratelimit/ no longer go through Hono, so the middleware is
 * held to the same behaviour here, and the two paths to each other.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/config.ts";
import { rateLimit, type RateLimitVariables } from "../../src/hono/middleware.ts";
import { compiled, gateway, testEnv, uniqueIp } from "../support/app.ts";
import { hangingCounters } from "../support/failing.ts";

const rules = {
  domain: "gw-middleware",
  descriptors: [{ key: "remote_address", rate_limit: { unit: "hour", requests_per_unit: 3, name: "per-ip" } }],
  routes: [{ match: { path: "/*" }, descriptors: [[{ key: "remote_address" }]] }],
};

function userApp(handler: "text" | "fetch-like") {
  const app = new Hono<{ Bindings: Env; Variables: RateLimitVariables }>();
  app.use("*", rateLimit({ rules: compiled(rules) }));
  app.get("*", (c) => {
    if (handler === "text") return c.text(`hello, ${c.get("rateLimit").remaining} left`);
    // A fetch response: its headers are immutable.
    return fetch(`${testEnv.TEST_ORIGIN_URL}/hello`);
  });
  return async (ip: string) => {
    const ctx = createExecutionContext();
    const response = await app.fetch(new Request("http://app.test/hello", { headers: { "cf-connecting-ip": ip } }), testEnv, ctx);
    await waitOnExecutionContext(ctx);
    return response;
  };
}

async function statusesAndHeaders(call: (ip: string) => Promise<Response>, ip: string) {
  const seen: { status: number; remaining: string | null; retryAfter: string | null; policy: string | null }[] = [];
  for (let i = 0; i < 5; i++) {
    const res = await call(ip);
    await res.arrayBuffer();
    seen.push({
      status: res.status,
      remaining: res.headers.get("X-RateLimit-Remaining"),
      retryAfter: res.headers.get("Retry-After") === null ? null : "set",
      policy: res.headers.get("RateLimit-Policy"),
    });
  }
  return seen;
}

describe("rateLimit() middleware in a user's Hono app", () => {
  it("lets the limit through with headers, then answers 429 with Retry-After, and passes the decision to the handler", async () => {
    const call = userApp("text");
    const ip = uniqueIp();
    const first = await call(ip);
    expect(await first.text()).toBe("hello, 2 left");
    const rest = await statusesAndHeaders(call, ip);
    expect(rest.map((r) => r.status)).toEqual([200, 200, 429, 429, 429]);
    expect(rest.map((r) => r.remaining)).toEqual(["1", "0", "0", "0", "0"]);
    expect(rest[2].retryAfter).toBe("set");
    expect(rest[0].policy).toBe('"per-ip";q=3;w=3600');
  });

  it("labels a fetch response (immutable headers, so copied) without losing the origin's own headers", async () => {
    const call = userApp("fetch-like");
    const res = await call(uniqueIp());
    expect(res.status).toBe(200);
    expect(res.headers.get("x-test-origin")).toBe("yes");
    expect(res.headers.get("X-RateLimit-Remaining")).toBe("2");
  });

  it("decides exactly as the gateway's own request path does", async () => {
    const ip = uniqueIp();
    const viaMiddleware = await statusesAndHeaders(userApp("text"), ip);
    const call = gateway(rules);
    const viaGateway = await statusesAndHeaders((other) => call("/hello", { ip: other }), uniqueIp());
    expect(viaGateway).toEqual(viaMiddleware);
  });
});

describe("rateLimit() with rules when the counters cannot be reached", () => {
  it('failure-open: the handler runs and c.get("rateLimit") holds the decision (reason failure_open)', async () => {
    const app = new Hono<{ Bindings: Env; Variables: RateLimitVariables }>();
    app.use("*", rateLimit({ rules: compiled(rules), counters: () => hangingCounters, timeoutMs: 50, failureMode: "open" }));
    app.get("*", (c) => c.json({ reason: c.get("rateLimit").reason, allowed: c.get("rateLimit").allowed }));
    const ctx = createExecutionContext();
    const res = await app.fetch(new Request("http://app.test/hello", { headers: { "cf-connecting-ip": uniqueIp() } }), testEnv, ctx);
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(200);
    expect(res.headers.get("X-RateLimit-Decision")).toBe("failure-open");
    expect(await res.json()).toEqual({ reason: "failure_open", allowed: true });
  });
});
