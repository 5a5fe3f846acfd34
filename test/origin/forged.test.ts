/**
 * Nothing a client forges about itself, the host or floodgate reaches the
 * origin (docs/deploy.md, "What the origin may trust"), in any spelling,
 * through the real gateway to the test origin, which echoes what it got.
 *
 * Breaks tried: isDroppedHeader without FORGEABLE_HEADERS (X-Forwarded-Host,
 * Forwarded, True-Client-IP, X-Real-IP arrived), and with `name` read as
 * sent instead of hyphenated (X_Real_IP and X_Floodgate_Signature arrived).
 */
import { describe, expect, it } from "vitest";
import { gateway, testEnv, uniqueIp } from "../support/app.ts";
import { originRecords, uniqueTag } from "../support/origin.ts";

const rules = {
  domain: "origin-forged",
  descriptors: [{ key: "remote_address", rate_limit: { unit: "hour", requests_per_unit: 1000 } }],
  routes: [{ match: {}, descriptors: [[{ key: "remote_address" }]] }],
};

const FORGED: Record<string, string> = {
  "X-Forwarded-Host": "evil.example",
  Forwarded: "for=198.51.100.66;host=evil.example;proto=https",
  "True-Client-IP": "198.51.100.66",
  "X-Real-IP": "198.51.100.66",
  "X-Client-IP": "198.51.100.66",
  "X-Forwarded-Proto": "https",
  "X-Original-URL": "/admin",
  "X-Rewrite-URL": "/admin",
  X_Forwarded_Host: "evil.example",
  X_Real_IP: "198.51.100.66",
  True_Client_IP: "198.51.100.66",
  X_Forwarded_For: "198.51.100.66",
  CF_Connecting_IP: "198.51.100.66",
  X_Floodgate_Signature: "v1=forged",
  "X-Floodgate_Queued-Id": "forged",
  X_RateLimit_Decision: "allowed",
};

describe("forged client, host and floodgate headers", () => {
  const call = gateway(rules, { ORIGIN_URL: testEnv.TEST_ORIGIN_URL });

  it("never reach the origin, and the Host it gets is ORIGIN_URL's", async () => {
    const tag = uniqueTag("forged");
    const res = await call("/orders", { ip: uniqueIp(), headers: { ...FORGED, "x-test-tag": tag, "x-custom": "kept", "x-api_key": "kept" } });
    expect(res.status).toBe(200);
    const [seen] = await originRecords(tag);
    for (const name of Object.keys(FORGED)) expect(seen.headers[name.toLowerCase()], name).toBeUndefined();
    expect(JSON.stringify(seen.headers)).not.toMatch(/evil\.example|198\.51\.100\.66/);
    expect(seen.headers.host).toBe(new URL(testEnv.TEST_ORIGIN_URL).host);
    // Headers that are nobody's to forge go on as sent.
    expect(seen.headers["x-custom"]).toBe("kept");
    expect(seen.headers["x-api_key"]).toBe("kept");
  });

  it("with TRUSTED_PROXY_HOPS and TRUSTED_PROXY_HEADER=x-real-ip, that header is your proxy's and goes on; its underscore spelling does not", async () => {
    const proxied = gateway(rules, { ORIGIN_URL: testEnv.TEST_ORIGIN_URL, TRUSTED_PROXY_HOPS: "1", TRUSTED_PROXY_HEADER: "x-real-ip" });
    const tag = uniqueTag("proxy");
    await proxied("/orders", { ip: "192.0.2.200", headers: { "x-test-tag": tag, "x-real-ip": "203.0.113.9", X_Real_IP: "198.51.100.66" } });
    const [seen] = await originRecords(tag);
    expect(seen.headers["x-real-ip"]).toBe("203.0.113.9");
    expect(seen.headers.x_real_ip).toBeUndefined();
  });
});
