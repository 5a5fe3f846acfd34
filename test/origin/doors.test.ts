/**
 * The small doors (docs/reliability.md, "Security"): every spelling of
 * /__ratelimit stays floodgate's, and TRACE and CONNECT never reach the
 * origin. Through the real gateway to the test origin.
 *
 * Breaks tried: the gateway's fetch without the `spelled` answer (the
 * spellings reached the origin), and without the TRACE/CONNECT refusal (TRACE
 * reached the origin with a 200); the consumer without its targetAtOrigin
 * check (the message naming another host was delivered there); the
 * signature without its host line (two hosts signed alike).
 */
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { consumeQueue } from "../../src/queue/consumer.ts";
import { targetAtOrigin } from "../../src/queue/deliver.ts";
import type { QueuedMessage } from "../../src/queue/message.ts";
import { canonicalString } from "../../src/queue/signature.ts";
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

  it("CONNECT cannot even be made a Request in workerd (test/cli/origin-probes.slow.test.mjs sends it over a socket)", () => {
    expect(() => new Request("http://gateway.test/", { method: "CONNECT" })).toThrow(TypeError);
  });
});

describe("the queue consumer", () => {
  it("delivers only to ORIGIN_URL: a message naming another host is dead-lettered, never sent", async () => {
    const tag = uniqueTag("elsewhere");
    // The test origin under another name: were the target trusted, the request would arrive there.
    const elsewhere = testEnv.TEST_ORIGIN_URL.replace("127.0.0.1", "localhost");
    const id = crypto.randomUUID();
    const message: QueuedMessage = {
      v: 1,
      id,
      queuedAt: Date.now(),
      request: { method: "POST", path: "/x", target: `${elsewhere}/x`, headers: [["x-test-tag", tag]], body: null },
      pace: [],
    };
    await testEnv.QUEUED!.getByName(id).create({ id, state: "queued", method: "POST", path: "/x", owner: ["x"], queuedAt: message.queuedAt, attempts: 0 });
    const batch = createMessageBatch("floodgate-queued", [{ id: "m0", timestamp: new Date(), attempts: 1, body: message }]);
    const ctx = createExecutionContext();
    await consumeQueue(batch, testEnv);
    expect((await getQueueResult(batch, ctx)).explicitAcks).toEqual(["m0"]);
    expect(await originRecords(tag)).toEqual([]);
    expect((await testEnv.QUEUED!.getByName(id).read())?.state).toBe("dead_lettered");
  });

  it("targetAtOrigin: ORIGIN_URL's scheme, host, port and path prefix, nothing else", () => {
    const origin = new URL("https://api.example.com/v1");
    expect(targetAtOrigin("https://api.example.com/v1/hook?a=1", origin)).toBe(true);
    expect(targetAtOrigin(null, undefined)).toBe(true);
    for (const target of [
      "https://evil.example/v1/hook",
      "http://api.example.com/v1/hook",
      "https://api.example.com:8443/v1/hook",
      "https://api.example.com/v2/hook",
      "https://api.example.com/v10",
      "https://u:p@api.example.com/v1/x",
      "not a url",
    ]) {
      expect(targetAtOrigin(target, origin), target).toBe(false);
    }
    expect(targetAtOrigin("https://api.example.com/v1/hook", undefined)).toBe(false);
  });

  it("signs the host and the credential headers: another host or another client's credentials do not verify", async () => {
    const parts = {
      method: "POST",
      host: "api.example.com",
      pathAndQuery: "/hook",
      id: "i",
      attempt: 1,
      timestamp: 1,
      body: null,
      credentials: ["Bearer a", "", "", "", ""],
    };
    const signed = await canonicalString(parts);
    expect(await canonicalString({ ...parts, host: "evil.example" })).not.toBe(signed);
    expect(await canonicalString({ ...parts, credentials: ["Bearer b", "", "", "", ""] })).not.toBe(signed);
    expect(await canonicalString({ ...parts, credentials: ["", "", "Bearer a", "", ""] })).not.toBe(signed);
  });
});
