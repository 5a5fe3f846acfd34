/**
 * `rateLimitStatus` of `floodgate/client` against the running gateway (its
 * `fetch` option calls the app directly): the policies parsed, the caller's
 * identifying headers sent along, and refusals thrown with the gateway's detail.
 * Break tried: the client not passing `init`'s headers on: the per-key
 * policy went missing and the test failed.
 */
import { describe, expect, it } from "vitest";
import { rateLimitStatus, RateLimitStatusError } from "../../src/client/index.ts";
import { gateway, uniqueIp } from "../support/app.ts";

const rules = {
  domain: "client-status",
  descriptors: [
    { key: "remote_address", rate_limit: { name: "per-ip", unit: "minute", requests_per_unit: 5 } },
    { key: "api_key", rate_limit: { name: "per-key", unit: "hour", requests_per_unit: 3 } },
  ],
  routes: [{ match: { path: "/v1/*" }, descriptors: [[{ key: "remote_address" }], [{ key: "api_key", header: "x-api-key" }]] }],
};

function client() {
  const call = gateway(rules);
  const ip = uniqueIp();
  const fetch = (request: Request) => {
    const url = new URL(request.url);
    expect(url.origin).toBe("https://api.example.test");
    return call(url.pathname + url.search, { method: request.method, headers: request.headers, ip });
  };
  return { call, ip, fetch };
}

describe("rateLimitStatus (floodgate/client)", () => {
  it("returns the caller's policies for the route, sending the caller's own headers, spending nothing", async () => {
    const { call, ip, fetch } = client();
    const headers = { "x-api-key": `key-${Math.random()}` };
    await call("/v1/reports", { method: "POST", headers, ip });
    for (let i = 0; i < 3; i++) {
      const policies = await rateLimitStatus("https://api.example.test", { method: "POST", path: "/v1/reports?draft=1" }, { headers }, { fetch });
      expect(policies).toEqual([
        { name: "per-ip", limit: 5, remaining: 4, reset_after_s: expect.any(Number), window_s: 60 },
        { name: "per-key", limit: 3, remaining: 2, reset_after_s: expect.any(Number), window_s: 3600 },
      ]);
    }
  });

  it("throws RateLimitStatusError with the gateway's detail for a bad route", async () => {
    const { fetch } = client();
    const error = await rateLimitStatus("https://api.example.test", { method: "GET", path: "v1/x" }, {}, { fetch }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitStatusError);
    expect((error as RateLimitStatusError).response.status).toBe(400);
    expect((error as RateLimitStatusError).message).toMatch(/^status of GET v1\/x: 400: path must start with "\/"/);
  });
});
