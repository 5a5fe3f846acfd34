// @ts-nocheck
// Bearer-token protection of /__ratelimit/json and the admin endpoints.
import { afterEach, describe, expect, it, vi } from "vitest";
import { bearerToken, tokensEqual } from "../../src/http/bearer.ts";
import { gateway } from "../support/app.ts";
import { TOKEN } from "../support/envoy.ts";

const rules = { domain: "auth", descriptors: [{ key: "k", rate_limit: { unit: "minute", requests_per_unit: 5 } }] };
const endpoints: [string, string, string?][] = [
  ["POST", "/__ratelimit/json", JSON.stringify({ domain: "auth", descriptors: [{ entries: [{ key: "k", value: "v" }] }] })],
  ["GET", "/__ratelimit/rules"],
  ["PUT", "/__ratelimit/rules", JSON.stringify(rules)],
  ["DELETE", "/__ratelimit/rules"],
  ["GET", "/__ratelimit/counters?domain=auth&descriptor=k=v"],
  ["DELETE", "/__ratelimit/counters?domain=auth&descriptor=k=v"],
  ["GET", "/__ratelimit/metrics"],
];
let object = 0;
const options = () => ({ objectName: `auth-test-${++object}` });

describe("admin endpoints without ADMIN_TOKEN configured", () => {
  const call = gateway(rules, {}, options());
  for (const [method, path, body] of endpoints) {
    it(`${method} ${path.split("?")[0]} answers 404, even with a token`, async () => {
      const res = await call(path, { method, body, headers: { authorization: `Bearer ${TOKEN}` } });
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toBe("application/problem+json");
    });
  }
});

describe("admin endpoints with ADMIN_TOKEN configured", () => {
  const call = gateway(rules, { ADMIN_TOKEN: TOKEN }, options());
  const wrongMethods: [string, string, string][] = [
    ["GET", "/__ratelimit/json", "POST"],
    ["POST", "/__ratelimit/rules", "GET, HEAD, PUT, DELETE"],
    ["PATCH", "/__ratelimit/counters?domain=auth&descriptor=k=v", "GET, HEAD, DELETE"],
    ["DELETE", "/__ratelimit/metrics", "GET, HEAD"],
  ];
  for (const [method, path, allow] of wrongMethods) {
    it(`${method} ${path.split("?")[0]}: 405 with Allow: ${allow} (after the token check)`, async () => {
      const none = await call(path, { method });
      expect(none.status).toBe(401);
      const res = await call(path, { method, headers: { authorization: `Bearer ${TOKEN}` } });
      expect(res.status).toBe(405);
      expect(res.headers.get("Allow")).toBe(allow);
      expect(res.headers.get("content-type")).toBe("application/problem+json");
      expect((await res.json<{ detail: string }>()).detail).toContain(`${method} is not supported`);
    });
  }
  it("still answers 404 for an unknown path under /__ratelimit/", async () => {
    const res = await call("/__ratelimit/nope", { method: "POST", headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(404);
  });

  for (const [method, path, body] of endpoints) {
    it(`${method} ${path.split("?")[0]}: 401 without a token, 401 with a wrong one, 2xx with the right one`, async () => {
      const none = await call(path, { method, body });
      expect(none.status).toBe(401);
      expect(none.headers.get("WWW-Authenticate")).toBe('Bearer realm="floodgate"');
      const wrong = await call(path, { method, body, headers: { authorization: `Bearer ${TOKEN}x` } });
      expect(wrong.status).toBe(401);
      expect(wrong.headers.get("WWW-Authenticate")).toBe('Bearer realm="floodgate"');
      expect((await wrong.json<{ detail: string }>()).detail).toMatch(/not the configured ADMIN_TOKEN/);
      const right = await call(path, { method, body, headers: { authorization: `Bearer ${TOKEN}` } });
      expect(right.status).toBeLessThan(300);
    });
  }

  it("keeps the health check open", async () => {
    expect((await call("/__ratelimit/healthcheck")).status).toBe(200);
  });

  it("rejects other schemes and a token given as a prefix", async () => {
    for (const header of [`Basic ${TOKEN}`, `Bearer ${TOKEN.slice(0, -1)}`, "Bearer", `Bearer ${TOKEN} extra`]) {
      expect((await call("/__ratelimit/metrics", { headers: { authorization: header } })).status).toBe(401);
    }
  });
});

describe("token comparison", () => {
  afterEach(() => vi.restoreAllMocks());

  it("compares SHA-256 digests with crypto.subtle.timingSafeEqual, so lengths never differ", async () => {
    const spy = vi.spyOn(crypto.subtle, "timingSafeEqual");
    expect(await tokensEqual("short", "a much longer expected token")).toBe(false);
    expect(await tokensEqual("same", "same")).toBe(true);
    expect(spy).toHaveBeenCalledTimes(2);
    for (const [a, b] of spy.mock.calls) {
      expect((a as ArrayBuffer).byteLength).toBe(32);
      expect((b as ArrayBuffer).byteLength).toBe(32);
    }
  });

  it("is what the endpoints use", async () => {
    const spy = vi.spyOn(crypto.subtle, "timingSafeEqual");
    const call = gateway(rules, { ADMIN_TOKEN: TOKEN }, options());
    await call("/__ratelimit/metrics", { headers: { authorization: "Bearer nope" } });
    expect(spy).toHaveBeenCalledTimes(1);
  });

  it("reads only Bearer tokens", () => {
    expect(bearerToken("Bearer abc")).toBe("abc");
    expect(bearerToken("bearer   abc ")).toBe("abc");
    expect(bearerToken("Basic abc")).toBeUndefined();
    expect(bearerToken(null)).toBeUndefined();
  });
});
