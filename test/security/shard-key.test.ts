// The shard index comes from a keyed hash (docs/deploy.md, "Shard key"):
// without the key nobody can choose descriptors that share one object. Every
// path that places a counter (the gateway, the admin counters lookup, the
// Hono middleware) uses the same key. Breaks tried: objectName placing by
// the unkeyed FNV-1a of before (both placement tests fail: the counter is in
// the public hash's object), and the admin lookup placing with a key of its
// own (the gateway/admin agreement test fails).
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/config.ts";
import { counterKey, halfSipHash, objectName, shardKeyFrom } from "../../src/durable/counters/placement.ts";
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

const rulesOf = (domain: string) => ({
  domain,
  descriptors: [{ key: "api_key", rate_limit: { unit: "hour", requests_per_unit: 10 } }],
  routes: [{ match: { path: "/*" }, descriptors: [[{ key: "api_key", header: "x-api-key" }]] }],
});

/** A value whose counter the keyed hash and the public one place apart, with both objects' names (computed here, not by objectName). */
function placedApart(domain: string, secret: string) {
  const shardKey = shardKeyFrom(secret, testEnv.COUNTERS);
  for (let i = 0; ; i++) {
    const value = `v-${i}`;
    const key = counterKey(domain, [{ key: "api_key", value }]);
    const home = `${domain}/shard/${halfSipHash(shardKey, key) % 64}`;
    const publicName = `${domain}/shard/${fnv1a(key) % 64}`;
    if (home !== publicName) return { value, key, home, publicName };
  }
}
const inMemory = async (name: string) => (await testEnv.COUNTERS.getByName(name).stats()).memory;

describe("every path places a counter with the deployment's one key", () => {
  it("the gateway charges the object the SHARD_KEY hash names, and the admin counters lookup reads that same counter", async () => {
    const domain = `shard-key-gateway-${Date.now()}`;
    const secret = `shard-secret-${Date.now()}`;
    const call = gateway(rulesOf(domain), { SHARD_KEY: secret, ADMIN_TOKEN: TOKEN });
    const { value, key, home, publicName } = placedApart(domain, secret);
    for (let i = 0; i < 3; i++) expect((await call("/x", { headers: { "x-api-key": value }, ip: uniqueIp() })).status).toBe(200);
    const admin = await call(`/__ratelimit/counters?domain=${domain}&descriptor=api_key=${value}`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(admin.status).toBe(200);
    expect((await admin.json<{ limits: { remaining: number }[] }>()).limits[0].remaining).toBe(7);
    expect(objectName(domain, "sharded", 64, key, shardKeyFrom(secret, testEnv.COUNTERS))).toBe(home);
    expect(await inMemory(home)).toBe(1);
    expect(await inMemory(publicName)).toBe(0);
  });

  it("the Hono middleware places with its shardKey option", async () => {
    const domain = `shard-key-hono-${Date.now()}`;
    const secret = `hono-shard-secret-${Date.now()}`;
    const app = new Hono<{ Bindings: Env }>();
    app.use("*", rateLimit({ rules: compiled(rulesOf(domain)), shardKey: secret }));
    app.get("*", (c) => c.text("ok"));
    const { value, home, publicName } = placedApart(domain, secret);
    const ctx = createExecutionContext();
    expect((await app.fetch(new Request("http://app.test/x", { headers: { "x-api-key": value } }), testEnv, ctx)).status).toBe(200);
    await waitOnExecutionContext(ctx);
    expect(await inMemory(home)).toBe(1);
    expect(await inMemory(publicName)).toBe(0);
    expect(() => rateLimit({ rules: compiled(rulesOf(domain)), shardKey: "" })).toThrow(/shardKey must be a non-empty string/);
  });
});
