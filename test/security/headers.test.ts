/**
 * floodgate's own headers belong to floodgate (docs/reliability.md,
 * "Security"): a client's copies of `X-Floodgate-*`, `X-RateLimit-Decision`
 * and `X-RateLimit-Delay-Ms` never reach the origin, `Connection` cannot
 * remove the client-address headers, and with TRUSTED_PROXY_HOPS only the
 * one header TRUSTED_PROXY_HEADER names says who the client is. Each through
 * the real gateway, to the test origin, which echoes what it received.
 *
 * Breaks tried: forwardHeaders without the `own` deletes (the forged headers
 * arrive), without the PROTECTED filter (x-forwarded-for is dropped), and
 * rawClientIp with the old X-Real-IP fallback (the rotated address gets 200).
 */
import { describe, expect, it } from "vitest";
import { gateway, testEnv, uniqueIp } from "../support/app.ts";

const rules = {
  domain: "security-headers",
  descriptors: [{ key: "remote_address", rate_limit: { unit: "hour", requests_per_unit: 1000 } }],
  routes: [{ match: {}, descriptors: [[{ key: "remote_address" }]] }],
};

interface Seen {
  readonly headers: Record<string, string>;
}

const FORGED = {
  "X-Floodgate-Queued-Id": "00000000-0000-4000-8000-000000000000",
  "X-Floodgate-Attempt": "1",
  "X-Floodgate-Signature": "v1=forged",
  "X-Floodgate-Timestamp": "1767225600",
  "x-floodgate-anything-else": "forged",
  "X-RateLimit-Decision": "allowed",
  "x-ratelimit-delay-ms": "0",
};

describe("a client's copies of floodgate's headers", () => {
  const call = gateway(rules, { ORIGIN_URL: testEnv.TEST_ORIGIN_URL });

  it("never reach the origin; the request's other headers do", async () => {
    const res = await call("/orders", { ip: uniqueIp(), headers: { ...FORGED, "x-custom": "kept" } });
    expect(res.status).toBe(200);
    const seen = await res.json<Seen>();
    expect(seen.headers["x-custom"]).toBe("kept");
    for (const name of Object.keys(FORGED)) expect(seen.headers[name.toLowerCase()], name).toBeUndefined();
  });

  it("are dropped even when Connection names them (they are not hop-by-hop to be kept either)", async () => {
    const res = await call("/orders", { ip: uniqueIp(), headers: { ...FORGED, connection: "x-floodgate-queued-id, X-RateLimit-Decision" } });
    const seen = await res.json<Seen>();
    for (const name of Object.keys(FORGED)) expect(seen.headers[name.toLowerCase()], name).toBeUndefined();
  });
});

describe("Connection cannot remove the client-address headers", () => {
  const call = gateway(rules, { ORIGIN_URL: testEnv.TEST_ORIGIN_URL });

  it("keeps X-Forwarded-For, and still drops an ordinary header it names (X-Real-IP, Forwarded, True-Client-IP are never the client's to send)", async () => {
    const addresses = {
      "x-forwarded-for": "203.0.113.7",
      "x-real-ip": "203.0.113.7",
      forwarded: "for=203.0.113.7",
      "true-client-ip": "203.0.113.7",
    };
    const res = await call("/orders", {
      ip: uniqueIp(),
      headers: { ...addresses, "x-trace": "hop", connection: "X-Forwarded-For, x-real-ip, forwarded, true-client-ip, cf-connecting-ip, x-trace" },
    });
    const seen = await res.json<Seen>();
    expect(seen.headers["x-forwarded-for"]).toBe("203.0.113.7");
    for (const name of ["x-real-ip", "forwarded", "true-client-ip"]) expect(seen.headers[name], name).toBeUndefined();
    expect(seen.headers["x-trace"]).toBeUndefined();
  });
});

describe("TRUSTED_PROXY_HOPS reads only the header TRUSTED_PROXY_HEADER names", () => {
  const perClient = {
    domain: "security-proxy-header",
    descriptors: [{ key: "remote_address", rate_limit: { unit: "hour", requests_per_unit: 1 } }],
    routes: [{ match: {}, descriptors: [[{ key: "remote_address" }]] }],
  };

  it("an X-Real-IP proxy: a client's rotating X-Forwarded-For does not make it a new client", async () => {
    const call = gateway(perClient, { TRUSTED_PROXY_HOPS: "1", TRUSTED_PROXY_HEADER: "x-real-ip" });
    const client = uniqueIp();
    const statuses = [];
    for (let i = 0; i < 3; i++) {
      // The proxy overwrote X-Real-IP; X-Forwarded-For is whatever the client wrote, and it rotates it.
      const headers = { "x-real-ip": client, "x-forwarded-for": uniqueIp() };
      statuses.push((await call("/login", { ip: "192.0.2.200", headers })).status);
    }
    expect(statuses).toEqual([200, 429, 429]);
  });

  it("an X-Forwarded-For proxy (the default): a client's X-Real-IP is no fallback", async () => {
    const call = gateway(perClient, { TRUSTED_PROXY_HOPS: "1" });
    const edge = uniqueIp();
    const statuses = [];
    // No X-Forwarded-For: the request did not come through the proxy, so the edge's address decides.
    for (let i = 0; i < 3; i++) statuses.push((await call("/login", { ip: edge, headers: { "x-real-ip": uniqueIp() } })).status);
    expect(statuses).toEqual([200, 429, 429]);
  });

  it("an unknown TRUSTED_PROXY_HEADER is a 503 naming no value, not a 500", async () => {
    const call = gateway(perClient, { TRUSTED_PROXY_HOPS: "1", TRUSTED_PROXY_HEADER: "x-client-ip" });
    const res = await call("/login", { ip: uniqueIp() });
    expect(res.status).toBe(503);
    expect(await res.text()).not.toContain("x-client-ip");
  });
});
