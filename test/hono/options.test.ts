/**
 * `rateLimit()` configured by its options alone: rules as a plain document,
 * counters under a binding name of the app's choosing, the failure mode and
 * timeout, and every bad option or rule refused when the middleware is made.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { RulesError, rateLimit, type RateLimitOptions } from "../../src/hono/middleware.ts";
import { hangingCounters } from "../support/failing.ts";
import { testEnv } from "../support/app.ts";

const rules = {
  domain: "hono-options",
  descriptors: [{ key: "user", rate_limit: { unit: "hour", requests_per_unit: 2, name: "per-user" } }],
  routes: [{ match: { path: "/api/*" }, descriptors: [[{ key: "user", header: "x-user" }]] }],
};

/** An app whose bindings are its own names, none of floodgate's `[vars]`. */
function appWith(options: Partial<RateLimitOptions>, bindings: Record<string, unknown>) {
  const app = new Hono();
  app.use("/api/*", rateLimit({ rules, counters: (c) => c.env.LIMITS, ...options }));
  app.get("/api/*", (c) => c.json({ remaining: c.get("rateLimit").remaining, reason: c.get("rateLimit").reason }));
  return async (user: string) => {
    const ctx = createExecutionContext();
    const response = await app.fetch(new Request("http://app.test/api/x", { headers: { "x-user": user } }), bindings, ctx);
    await waitOnExecutionContext(ctx);
    return response;
  };
}

describe("rateLimit() options", () => {
  it("takes a plain rules document and counters under any binding name", async () => {
    const call = appWith({}, { LIMITS: testEnv.COUNTERS });
    const user = `u-${crypto.randomUUID()}`;
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const response = await call(user);
      statuses.push(response.status);
      if (i === 0) expect(await response.json()).toEqual({ remaining: 1, reason: "allowed" });
      else await response.arrayBuffer();
    }
    expect(statuses).toEqual([200, 200, 429]);
  });

  it("failureMode closed answers 503 when the counters do not answer within timeoutMs; open lets the request through, labelled; local decides", async () => {
    const user = `u-${crypto.randomUUID()}`;
    const closed = await appWith({ failureMode: "closed", timeoutMs: 50 }, { LIMITS: hangingCounters })(user);
    expect(closed.status).toBe(503);
    expect(closed.headers.get("X-RateLimit-Decision")).toBe("failure-closed");
    await closed.arrayBuffer();
    const open = await appWith({ failureMode: "open", timeoutMs: 50 }, { LIMITS: hangingCounters })(user);
    expect(open.status).toBe(200);
    expect(open.headers.get("X-RateLimit-Decision")).toBe("failure-open");
    expect(((await open.json()) as { reason: string }).reason).toBe("failure_open");
    // The default, local: decided by the isolate's own counter, and marked so.
    const local = await appWith({ timeoutMs: 50 }, { LIMITS: hangingCounters })(user);
    expect(local.status).toBe(200);
    expect(local.headers.get("X-RateLimit-Decision")).toBe("local");
    expect(((await local.json()) as { reason: string }).reason).toBe("allowed");
  });

  it("refuses invalid rules when the middleware is made, with every error and its JSON path", () => {
    const bad = { domain: "", descriptors: [{ key: "user", rate_limit: { unit: "fortnight", requests_per_unit: -1 } }] };
    let thrown: unknown;
    try {
      rateLimit({ rules: bad });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(RulesError);
    const paths = (thrown as RulesError).errors.map((e) => e.path);
    expect(paths).toEqual(expect.arrayContaining(["$.domain", "$.descriptors[0].rate_limit.unit", "$.descriptors[0].rate_limit.requests_per_unit"]));
    expect((thrown as Error).message).toContain("$.descriptors[0].rate_limit.unit");
  });

  it("refuses options it cannot honour, naming the option", () => {
    expect(() => rateLimit({ rules, failureMode: "maybe" as "open" })).toThrow(/failureMode must be one of "local", "open", "closed"/);
    expect(() => rateLimit({ rules, timeoutMs: 0 })).toThrow(/timeoutMs must be a whole number of milliseconds from 1 to 600000/);
    expect(() => rateLimit({ rules, timeoutMs: 1.5 })).toThrow(/timeoutMs/);
    expect(() => rateLimit({ rules, trustedProxyHops: -1 })).toThrow(/trustedProxyHops/);
    expect(() => rateLimit({ rules, trustedProxyHeader: "x-client-ip" as "x-real-ip" })).toThrow(/trustedProxyHeader must be "x-forwarded-for" or "x-real-ip"/);
    expect(() => rateLimit({ rules, shadowMode: "yes" as unknown as boolean })).toThrow(/shadowMode must be true or false/);
  });

  it("says which binding is missing when counters(c) gives no namespace", async () => {
    const app = new Hono();
    app.use("*", rateLimit({ rules }));
    app.onError((error, c) => c.text(String(error), 500));
    const response = await app.fetch(new Request("http://app.test/api/x", { headers: { "x-user": "a" } }), {}, createExecutionContext());
    expect(await response.text()).toMatch(/options\.counters\(c\) did not return a Durable Object namespace.*c\.env\.COUNTERS/);
  });
});

describe("rateLimit() headers option", () => {
  it("speaks the dialect it was given, on allowed responses and on the 429", async () => {
    const user = `u-${crypto.randomUUID()}`;
    const call = appWith({ headers: "draft-7" }, { LIMITS: testEnv.COUNTERS });
    const first = await call(user);
    await first.arrayBuffer();
    expect(first.headers.get("RateLimit")).toMatch(/^limit=2, remaining=1, reset=\d+$/);
    expect(first.headers.get("RateLimit-Policy")).toBe("2;w=3600");
    await (await call(user)).arrayBuffer();
    const over = await call(user);
    expect(over.status).toBe(429);
    expect(over.headers.get("RateLimit")).toMatch(/^limit=2, remaining=0, reset=\d+$/);
    await over.arrayBuffer();
    const quiet = await appWith({ headers: "none" }, { LIMITS: testEnv.COUNTERS })(`u-${crypto.randomUUID()}`);
    await quiet.arrayBuffer();
    expect([...quiet.headers.keys()].filter((k) => k.includes("ratelimit"))).toEqual([]);
  });

  it("refuses a dialect it does not know", () => {
    expect(() => rateLimit({ rules, headers: "draft-8" as "draft-7" })).toThrow(/headers must be one of "draft-11", "draft-7", "draft-6", "none"/);
  });
});
