// @ts-nocheck
// SHADOW_MODE (global shadow switch) and shadow_mode rules on the HTTP gateway.
import { describe, expect, it } from "vitest";
import { gateway, uniqueIp } from "../support/app.ts";

const rules = {
  domain: "gw-shadow",
  descriptors: [
    { key: "remote_address", rate_limit: { unit: "minute", requests_per_unit: 2 } },
    { key: "trial", shadow_mode: true, rate_limit: { unit: "minute", requests_per_unit: 1 } },
  ],
  routes: [
    { match: { path: "/trial" }, descriptors: [[{ key: "trial", header: "x-trial" }]] },
    { match: { path: "/*" }, descriptors: [[{ key: "remote_address" }]] },
  ],
};

describe("SHADOW_MODE=true", () => {
  const call = gateway(rules, { SHADOW_MODE: "true" });

  it("lets requests over the limit through, still telling the quota in the headers", async () => {
    const ip = uniqueIp();
    for (let i = 0; i < 2; i++) expect((await call("/x", { ip })).status).toBe(200);
    const over = await call("/x", { ip });
    expect(over.status).toBe(200);
    expect(over.headers.get("X-RateLimit-Remaining")).toBe("0");
    expect(over.headers.get("Retry-After")).toBeNull();
    expect((await over.json<{ rate_limit: { reason: string } }>()).rate_limit.reason).toBe("shadow");
  });

  it("rejects a value that is not true or false with a 503 naming the variable", async () => {
    const bad = gateway(rules, { SHADOW_MODE: "maybe" });
    const res = await bad("/x", { ip: uniqueIp() });
    expect(res.status).toBe(503);
    expect((await res.json<{ detail: string }>()).detail).toMatch(/SHADOW_MODE must be "true" or "false"/);
  });
});

describe("shadow_mode on a rule", () => {
  it("never blocks requests matching it, without SHADOW_MODE", async () => {
    const call = gateway(rules, { ADMIN_TOKEN: "shadow-admin" });
    const trial = `t-${Date.now()}`;
    for (let i = 0; i < 3; i++) {
      const res = await call("/trial", { ip: uniqueIp(), headers: { "x-trial": trial } });
      expect(res.status).toBe(200);
      expect(res.headers.get("Retry-After")).toBeNull();
    }
    // A request matching no rule would get a 200 as well: the rule must have counted them (limit 1, nothing left).
    const counter = await call(`/__ratelimit/counters?domain=gw-shadow&descriptor=trial=${trial}`, { headers: { authorization: "Bearer shadow-admin" } });
    expect(counter.status).toBe(200);
    expect((await counter.json<{ limits: { remaining: number }[] }>()).limits.map((l) => l.remaining)).toEqual([0]);
    const over = await call("/trial", { ip: uniqueIp(), headers: { "x-trial": trial } });
    expect(over.status).toBe(200);
    const ip = uniqueIp();
    for (let i = 0; i < 2; i++) await call("/x", { ip });
    expect((await call("/x", { ip })).status).toBe(429);
  });
});
