// The shard index comes from a keyed hash (docs/deploy.md, "Shard key"):
// without the key nobody can choose descriptors that share one object. Every
// path that places a counter (the gateway, the admin counters lookup, the
// Hono middleware) uses the same key. Breaks tried: the unkeyed FNV-1a of
// before (the "not the public hash" test fails), and the admin lookup placing
// with a key of its own (the gateway/admin agreement test fails).
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/config.ts";
import { counterKey, halfSipHash, objectName, shardKeyFrom } from "../../src/durable/placement.ts";
import { rateLimit } from "../../src/hono/middleware.ts";
import { compiled, gateway, testEnv, uniqueIp } from "../support/app.ts";
import { TOKEN } from "../support/envoy.ts";

const fnv1a = (text: string) => {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
};
const keys = Array.from({ length: 1_000 }, (_, i) => counterKey("api", [{ key: "api_key", value: `key-${i}` }]));
const shardsOf = (key: { k0: number; k1: number }) => keys.map((k) => halfSipHash(key, k) % 64);
const agreeing = (a: number[], b: number[]) => a.filter((shard, i) => shard === b[i]).length;

describe("the keyed shard hash", () => {
  it("is HalfSipHash-2-4: the reference vectors (key 00…07, messages 00…n−1)", () => {
    const key = { k0: 0x03020100, k1: 0x07060504 };
    expect(halfSipHash(key, "")).toBe(0x5b9f35a9);
    expect(halfSipHash(key, "\u0100")).toBe(0x03a662fa);
  });

  it("places keys differently under different secrets, and spreads them evenly", () => {
    const a = shardsOf(shardKeyFrom("first-deployment-secret", testEnv.COUNTERS));
    const b = shardsOf(shardKeyFrom("second-deployment-secret", testEnv.COUNTERS));
    // Independent placements agree on about 1 key in 64.
    expect(agreeing(a, b)).toBeLessThan(60);
    const counts = new Array(64).fill(0);
    for (const shard of a) counts[shard] += 1;
    expect(Math.max(...counts)).toBeLessThan(40); // 15.6 on average
  });

  it("is not the public hash by default: the key derived from the namespace places keys unlike FNV-1a", () => {
    const byDefault = shardsOf(shardKeyFrom(undefined, testEnv.COUNTERS));
    expect(
      agreeing(
        byDefault,
        keys.map((k) => fnv1a(k) % 64),
      ),
    ).toBeLessThan(60);
    // The default is one key, the same wherever it is derived.
    expect(shardsOf(shardKeyFrom(undefined, testEnv.COUNTERS))).toEqual(byDefault);
  });
});

const rules = {
  domain: "shard-key",
  descriptors: [{ key: "api_key", rate_limit: { unit: "hour", requests_per_unit: 10 } }],
  routes: [{ match: { path: "/*" }, descriptors: [[{ key: "api_key", header: "x-api-key" }]] }],
};
describe("every path places a counter with the deployment's one key", () => {
  it("the gateway charges the object the SHARD_KEY hash names, and the admin counters lookup reads that same counter", async () => {
    const secret = `shard-secret-${Date.now()}`;
    const call = gateway(rules, { SHARD_KEY: secret, ADMIN_TOKEN: TOKEN });
    const value = `k-${Date.now()}`;
    for (let i = 0; i < 3; i++) expect((await call("/x", { headers: { "x-api-key": value }, ip: uniqueIp() })).status).toBe(200);
    const admin = await call(`/__ratelimit/counters?domain=shard-key&descriptor=api_key=${value}`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(admin.status).toBe(200);
    expect((await admin.json<{ limits: { remaining: number }[] }>()).limits[0].remaining).toBe(7);
    const key = counterKey("shard-key", [{ key: "api_key", value }]);
    const home = objectName("shard-key", "sharded", 64, key, shardKeyFrom(secret, testEnv.COUNTERS));
    expect((await testEnv.COUNTERS.getByName(home).stats()).memory).toBe(1);
    // The public hash's object (when it is another) holds nothing of it.
    const publicName = `shard-key/shard/${fnv1a(key) % 64}`;
    if (publicName !== home) expect((await testEnv.COUNTERS.getByName(publicName).stats()).memory).toBe(0);
  });

  it("the Hono middleware places with its shardKey option", async () => {
    const secret = `hono-shard-secret-${Date.now()}`;
    const app = new Hono<{ Bindings: Env }>();
    app.use("*", rateLimit({ rules: compiled(rules), shardKey: secret }));
    app.get("*", (c) => c.text("ok"));
    const value = `hono-${Date.now()}`;
    const ctx = createExecutionContext();
    expect((await app.fetch(new Request("http://app.test/x", { headers: { "x-api-key": value } }), testEnv, ctx)).status).toBe(200);
    await waitOnExecutionContext(ctx);
    const key = counterKey("shard-key", [{ key: "api_key", value }]);
    const home = objectName("shard-key", "sharded", 64, key, shardKeyFrom(secret, testEnv.COUNTERS));
    expect((await testEnv.COUNTERS.getByName(home).stats()).memory).toBe(1);
    expect(() => rateLimit({ rules: compiled(rules), shardKey: "" })).toThrow(/shardKey must be a non-empty string/);
  });
});
