/**
 * ORIGIN_URL unset, through the real gateway. Under wrangler dev (the
 * request's host is this machine, or a special-use name such as the test
 * helper's `gateway.test`) and on workers.dev: the built-in echo. On a zone
 * route: `fetch(request)` to the route's own origin, never the echo. That
 * origin cannot be reached offline from these tests (a zone's name needs
 * real DNS), so they prove the decision and that the fetch is attempted (a
 * 502 naming the route's origin instead of an echo), not a delivery to a
 * zone; the loop guard is proven in full.
 */
// @ts-nocheck

import { describe, expect, it } from "vitest";
import { HOP_HEADER } from "../../src/gateway/no-origin.ts";
import { gateway, testEnv, uniqueIp } from "../support/app.ts";

const rules = {
  domain: "gw-no-origin",
  descriptors: [{ key: "remote_address", rate_limit: { unit: "hour", requests_per_unit: 1000 } }],
  routes: [{ match: { path: "/*" }, descriptors: [[{ key: "remote_address" }]] }],
};
const call = gateway(rules);
// A zone-like name under example.com, which has no such host: its DNS lookup fails with or without a network.
const ZONE = "http://no-such-host.floodgate-tests.example.com";

describe("ORIGIN_URL unset", () => {
  for (const base of ["http://127.0.0.1:8787", "http://localhost:9000", "http://[::1]:8787", "http://192.168.1.20:8787", "https://floodgate.me.workers.dev"]) {
    it(`answers with the echo at ${base}`, async () => {
      const res = await call("/orders?id=7", { ip: uniqueIp(), base });
      expect(res.status).toBe(200);
      const body = await res.json<{ echo: { method: string; path: string; query: Record<string, string> }; rate_limit: { allowed: boolean } }>();
      expect(body.echo).toMatchObject({ method: "GET", path: "/orders", query: { id: "7" } });
      expect(body.rate_limit.allowed).toBe(true);
      expect(res.headers.get("X-RateLimit-Limit")).toBe("1000");
    });
  }

  it("on a zone route, passes the request on with fetch(request) instead of echoing it", async () => {
    const res = await call("/orders?id=7", { ip: uniqueIp(), base: ZONE });
    expect(res.status).toBe(502);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    const body = await res.json<{ detail: string }>();
    expect(body.detail).toMatch(/^The origin of no-such-host\.floodgate-tests\.example\.com could not be reached \(ORIGIN_URL is unset, /);
    // Limited first, as every request: the rate-limit headers are on the answer.
    expect(res.headers.get("X-RateLimit-Limit")).toBe("1000");
  });

  it(`a request that comes back with ${HOP_HEADER} (a route leading to this Worker again) gets 508, not another round`, async () => {
    const res = await call("/orders", { ip: uniqueIp(), base: ZONE, headers: { [HOP_HEADER]: "1" } });
    expect(res.status).toBe(508);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(await res.json()).toMatchObject({ status: 508, title: "Loop Detected" });
  });

  it("the hop header means nothing where there is an echo or an ORIGIN_URL", async () => {
    const headers = { [HOP_HEADER]: "1" };
    expect((await call("/x", { ip: uniqueIp(), headers })).status).toBe(200);
    const withOrigin = gateway(rules, { ORIGIN_URL: testEnv.TEST_ORIGIN_URL });
    const res = await withOrigin("/x", { ip: uniqueIp(), base: ZONE, headers });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-test-origin")).toBe("yes");
    await res.body?.cancel();
  });
});
