// @ts-nocheck
// GET/DELETE /__ratelimit/counters: read a counter without consuming it, reset it.
import { describe, expect, it } from "vitest";
import { parseCounterQuery } from "../../src/admin/descriptor-param.ts";
import { d, envoyApi } from "../support/envoy.ts";

const rules = {
  domain: "ctr",
  descriptors: [
    {
      key: "user",
      rate_limits: [
        { name: "ctr-minute", unit: "minute", requests_per_unit: 10 },
        { name: "ctr-day", unit: "day", requests_per_unit: 100 },
      ],
    },
    { key: "path", value: "/login", descriptors: [{ key: "ip", rate_limit: { unit: "hour", requests_per_unit: 3, algorithm: "fixed_window" } }] },
    { key: "free", value: "yes" },
    { key: "open", rate_limit: { unlimited: true } },
  ],
};
const api = envoyApi(rules);
let n = 0;
const unique = () => `v${++n}-${Date.now()}`;
const counter = (query: string, method = "GET") => api.admin(`/__ratelimit/counters?${query}`, { method });

describe("GET /__ratelimit/counters", () => {
  it("reads every window of a counter without consuming from it", async () => {
    const user = unique();
    await api.json({ domain: "ctr", descriptors: [d(["user", user])], hits_addend: 3 });
    for (let i = 0; i < 2; i++) {
      const res = await counter(`domain=ctr&descriptor=user=${user}`);
      expect(res.status).toBe(200);
      const body = await res.json<{ domain: string; descriptor: unknown; limits: Record<string, unknown>[] }>();
      expect(body.domain).toBe("ctr");
      expect(body.descriptor).toEqual([{ key: "user", value: user }]);
      expect(body.limits).toEqual([
        expect.objectContaining({ name: "ctr-minute", unit: "minute", requests_per_unit: 10, window_seconds: 60, remaining: 7 }),
        expect.objectContaining({ name: "ctr-day", unit: "day", requests_per_unit: 100, window_seconds: 86400, remaining: 97 }),
      ]);
      expect(body.limits[0].reset_after_seconds).toBeGreaterThan(0);
    }
  });

  it("finds nested descriptors with the decision's own matcher, values percent-decoded after splitting", async () => {
    const ip = `2001:db8::${n + 1}`;
    unique();
    await api.json({ domain: "ctr", descriptors: [d(["path", "/login"], ["ip", ip])] });
    const res = await counter(`domain=ctr&descriptor=path=%2Flogin,ip=${encodeURIComponent(ip)}`);
    expect(res.status).toBe(200);
    expect((await res.json<{ limits: { remaining: number }[] }>()).limits[0].remaining).toBe(2);
  });

  it("answers 404 for an unknown domain, an unmatched descriptor, a whitelisted and an unlimited one", async () => {
    for (const query of [
      "domain=nope&descriptor=user=a",
      "domain=ctr&descriptor=zzz=a",
      "domain=ctr&descriptor=free=yes",
      "domain=ctr&descriptor=open=a",
      "domain=ctr&descriptor=user=a,extra=b",
    ]) {
      const res = await counter(query);
      expect(res.status, query).toBe(404);
      expect(res.headers.get("content-type")).toBe("application/problem+json");
    }
  });

  it("answers 400 for a malformed query", async () => {
    for (const query of [
      "descriptor=user=a",
      "domain=ctr",
      "domain=ctr&descriptor=user",
      "domain=ctr&descriptor=user=a,",
      "domain=ctr&descriptor==a",
      "domain=ctr&descriptor=user=a=b",
      "domain=ctr&descriptor=user=%ZZ",
      "domain=ctr&descriptor=user=a&descriptor=user=b",
    ]) {
      const res = await counter(query);
      expect(res.status, query).toBe(400);
      expect((await res.json<{ detail: string }>()).detail).toMatch(/domain|descriptor|key=value|percent-encoded/);
    }
  });
});

describe("DELETE /__ratelimit/counters", () => {
  it("resets every window of the counter", async () => {
    const user = unique();
    await api.json({ domain: "ctr", descriptors: [d(["user", user])], hits_addend: 10 });
    expect((await api.json({ domain: "ctr", descriptors: [d(["user", user])] })).status).toBe(429);
    const res = await counter(`domain=ctr&descriptor=user=${user}`, "DELETE");
    expect(res.status).toBe(200);
    const body = await res.json<{ reset: boolean; limits: { remaining: number }[] }>();
    expect(body.reset).toBe(true);
    expect(body.limits.map((l) => l.remaining)).toEqual([10, 100]);
    expect((await api.json({ domain: "ctr", descriptors: [d(["user", user])] })).status).toBe(200);
  });
});

describe("the descriptor parameter", () => {
  it("splits on raw , and = and then decodes, so %2C %3D %25 are literal", () => {
    expect(parseCounterQuery("?domain=a%20b&descriptor=k%2C1=v%3D2%2Cx,k2=%25")).toEqual({
      ok: true,
      domain: "a b",
      entries: [
        { key: "k,1", value: "v=2,x" },
        { key: "k2", value: "%" },
      ],
    });
    expect(parseCounterQuery("?domain=a&descriptor=k=a+b")).toMatchObject({ entries: [{ key: "k", value: "a+b" }] });
    expect(parseCounterQuery("?domain=a&descriptor=k=")).toMatchObject({ entries: [{ key: "k", value: "" }] });
  });
});
