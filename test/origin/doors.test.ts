/**
 * The small doors (docs/reliability.md, "Security"): every spelling of
 * /__ratelimit stays floodgate's, and TRACE and CONNECT never reach the
 * origin. Through the real gateway to the test origin.
 *
 * Breaks tried: the gateway's fetch without the `spelled` answer (the
 * spellings reached the origin), and without the TRACE/CONNECT refusal (TRACE
 * reached the origin with a 200).
 */
import { describe, expect, it } from "vitest";
import { gateway, testEnv, uniqueIp } from "../support/app.ts";
import { originRecords, uniqueTag } from "../support/origin.ts";

const rules = {
  domain: "origin-doors",
  descriptors: [{ key: "remote_address", rate_limit: { unit: "hour", requests_per_unit: 1000 } }],
  routes: [{ match: {}, descriptors: [[{ key: "remote_address" }]] }],
};

describe("/__ratelimit spelled another way", () => {
  const call = gateway(rules, { ORIGIN_URL: testEnv.TEST_ORIGIN_URL });

  it("is never forwarded to the origin", async () => {
    for (const path of [
      "//__ratelimit/json",
      "/__RATELIMIT/json",
      "/__ratelimit;x/json",
      "/%5F_ratelimit/json",
      "/%5f%5fRateLimit/rules",
      "/__Ratelimit",
      "/__ratelimit%2Fjson",
      "/__ratelimit%5Cjson",
    ]) {
      const tag = uniqueTag("admin");
      const res = await call(path, { ip: uniqueIp(), headers: { "x-test-tag": tag } });
      expect(res.status, path).toBe(404);
      expect(await originRecords(tag), path).toEqual([]);
    }
  });

  it("leaves paths that only look alike to the origin", async () => {
    for (const path of ["/__ratelimitx", "/api/__ratelimit", "/__rate_limit/json"]) {
      const tag = uniqueTag("alike");
      expect((await call(path, { ip: uniqueIp(), headers: { "x-test-tag": tag } })).status, path).toBe(200);
      expect(await originRecords(tag), path).toHaveLength(1);
    }
  });
});

describe("TRACE and CONNECT", () => {
  const call = gateway(rules, { ORIGIN_URL: testEnv.TEST_ORIGIN_URL });

  it("TRACE is a 405 and never reaches the origin", async () => {
    const tag = uniqueTag("trace");
    const res = await call("/orders", { ip: uniqueIp(), method: "TRACE", headers: { "x-test-tag": tag } });
    expect(res.status).toBe(405);
    expect(await originRecords(tag)).toEqual([]);
  });

  it("CONNECT cannot even be made a Request in workerd (test/cli/origin-probes.test.mjs sends it over a socket)", () => {
    expect(() => new Request("http://gateway.test/", { method: "CONNECT" })).toThrow(TypeError);
  });
});
