/**
 * The Hono middleware takes count_when, route cost and cost_from_response
 * like the gateway: it settles after the user's handler answered.
 */
// @ts-nocheck

import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/config.ts";
import { rateLimit } from "../../src/hono/middleware.ts";
import { compiled, testEnv, uniqueIp } from "../support/app.ts";

const rules = {
  domain: "hono-response-limits",
  descriptors: [
    { key: "login", rate_limit: { name: "failed-logins", unit: "hour", requests_per_unit: 2, count_when: { status: ["4xx"] } } },
    { key: "tokens", rate_limit: { name: "tokens", unit: "hour", requests_per_unit: 50, algorithm: "fixed_window" } },
  ],
  routes: [
    { match: { methods: ["POST"], path: "/login" }, descriptors: [[{ key: "login", header: "x-user" }]] },
    {
      match: { path: "/complete" },
      descriptors: [[{ key: "tokens", header: "x-user" }]],
      cost: { header: "x-cost" },
      cost_from_response: { header: "x-tokens-used" },
    },
  ],
};

function userApp() {
  const app = new Hono<{ Bindings: Env }>();
  app.use("*", rateLimit({ rules: compiled(rules) }));
  app.post("/login", (c) => c.text("", c.req.header("x-password") === "right" ? 200 : 401));
  app.get("/complete", (c) => c.text("done", 200, { "x-tokens-used": c.req.query("tokens") ?? "" }));
  return async (path: string, init: RequestInit) => {
    const ctx = createExecutionContext();
    const response = await app.fetch(new Request(`http://app.test${path}`, init), testEnv, ctx);
    await waitOnExecutionContext(ctx);
    return response;
  };
}

describe("rateLimit() with response limits", () => {
  it("count_when: right passwords are free, wrong ones count, then the user is refused before the handler", async () => {
    const call = userApp();
    const user = uniqueIp();
    const login = (password: string) => call("/login", { method: "POST", headers: { "x-user": user, "x-password": password } }).then((r) => r.status);
    const seen = [];
    for (const password of ["right", "right", "wrong", "right", "wrong", "right", "right"]) seen.push(await login(password));
    expect(seen).toEqual([200, 200, 401, 200, 401, 429, 429]);
  });

  it("cost from a header, then what the handler reports; a bad cost header is a 400", async () => {
    const call = userApp();
    const user = uniqueIp();
    const complete = (cost: string, tokens: number) =>
      call(`/complete?tokens=${tokens}`, { headers: { "x-user": user, "x-cost": cost } }).then((r) => r.status);
    expect(await complete("10", 30)).toBe(200); // 30 spent
    expect(await complete("10", 25)).toBe(200); // 20 left at admission, 50 spent after
    expect(await complete("1", 1)).toBe(429);
    const bad = await call("/complete", { headers: { "x-user": uniqueIp(), "x-cost": "lots" } });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain("x-cost");
  });
});
