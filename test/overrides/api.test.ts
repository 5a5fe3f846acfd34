/**
 * PUT/GET/DELETE /__ratelimit/overrides through the real gateway and the
 * real RulesObject: an override replaces the rules' limit of the
 * descriptors it matches in decisions and counter lookups, invalid input
 * is refused whole with every error, and sizes are bounded.
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { OverridesOverlay } from "../../src/overrides/overlay.ts";
import { MAX_OVERRIDES_PER_DOMAIN } from "../../src/durable/rules/override-store.ts";
import { testEnv } from "../support/app.ts";
import { d, envoyApi } from "../support/envoy.ts";

const RULES = {
  domain: "ov",
  descriptors: [
    { key: "user", rate_limit: { unit: "minute", requests_per_unit: 5 } },
    { key: "plan", value: "free", descriptors: [{ key: "user", rate_limit: { unit: "minute", requests_per_unit: 3 } }] },
  ],
};
const START = Date.parse("2026-11-27T12:00:00Z");
let objects = 0;

function api() {
  const clock = { at: START };
  const objectName = `overrides-api-${++objects}`;
  const gateway = envoyApi(RULES, {}, { objectName, overlay: new OverridesOverlay(), now: () => clock.at });
  const send = async (method: string, path: string, body?: unknown) => {
    const response = await gateway.admin(path, {
      method,
      ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body), headers: { "content-type": "application/json" } }),
    });
    return { status: response.status, body: await response.json<any>() };
  };
  /** The limit a decision of `user=value` gets, without spending any. */
  const limitOf = async (value: string, plan?: string) => {
    const entries: [string, string][] =
      plan === undefined
        ? [["user", value]]
        : [
            ["plan", plan],
            ["user", value],
          ];
    const answer = await gateway.json({ domain: "ov", descriptors: [d(...entries)], hits_addend: 0 });
    return answer.body.statuses[0].currentLimit?.requestsPerUnit ?? "none";
  };
  /** Spend `n` hits of `user=value`; the codes answered. */
  const spend = async (value: string, n: number) => {
    const codes: string[] = [];
    for (let i = 0; i < n; i++) codes.push((await gateway.json({ domain: "ov", descriptors: [d(["user", value])] })).body.overallCode);
    return codes;
  };
  return { clock, objectName, send, limitOf, spend, gateway };
}

describe("overrides", () => {
  it("raise and lower one customer's limit at once, and DELETE gives the rules' limit back", async () => {
    const a = api();
    expect(await a.limitOf("acme")).toBe(5);
    const put = await a.send("PUT", "/__ratelimit/overrides", {
      domain: "ov",
      descriptor: "user=acme",
      rate_limit: { unit: "minute", requests_per_unit: 50 },
      note: "INC-1",
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      version: 1,
      override: {
        domain: "ov",
        descriptor: "user=acme",
        rate_limit: { unit: "minute", requests_per_unit: 50 },
        note: "INC-1",
        expires_at: null,
        expired: false,
      },
    });
    expect(await a.limitOf("acme")).toBe(50);
    expect(await a.limitOf("other")).toBe(5);
    // Lowered: the override's own counter, from zero.
    expect(
      (await a.send("PUT", "/__ratelimit/overrides", { domain: "ov", descriptor: "user=acme", rate_limit: { unit: "minute", requests_per_unit: 2 } })).body
        .version,
    ).toBe(2);
    expect(await a.spend("acme", 3)).toEqual(["OK", "OK", "OVER_LIMIT"]);
    const removed = await a.send("DELETE", "/__ratelimit/overrides?domain=ov&descriptor=user=acme");
    expect(removed).toEqual({ status: 200, body: { version: 3, removed: true } });
    expect(await a.limitOf("acme")).toBe(5);
    expect((await a.send("DELETE", "/__ratelimit/overrides?domain=ov&descriptor=user=acme")).status).toBe(404);
  });

  it("applies a wildcard to every matching key, the exact one first, the longest wildcard next", async () => {
    const a = api();
    const put = (descriptor: string, n: number) =>
      a.send("PUT", "/__ratelimit/overrides", { domain: "ov", descriptor, rate_limit: { unit: "minute", requests_per_unit: n } });
    expect((await put("user=acme-*", 10)).status).toBe(200);
    expect((await put("user=acme-eu-*", 20)).status).toBe(200);
    expect((await put("user=acme-eu-1", 30)).status).toBe(200);
    expect([
      await a.limitOf("acme-us-1"),
      await a.limitOf("acme-us-2"),
      await a.limitOf("acme-eu-9"),
      await a.limitOf("acme-eu-1"),
      await a.limitOf("bcme"),
    ]).toEqual([10, 10, 20, 30, 5]);
    // A nested descriptor is its own: the wildcard on user= alone does not touch plan=free,user=….
    expect(await a.limitOf("acme-us-1", "free")).toBe(3);
    const list = await a.send("GET", "/__ratelimit/overrides?domain=ov");
    expect(list.body.overrides.map((o: { descriptor: string }) => o.descriptor)).toEqual(["user=acme-*", "user=acme-eu-*", "user=acme-eu-1"]);
  });

  it("makes a key unlimited, and the counters endpoint names the override that applies", async () => {
    const a = api();
    await a.send("PUT", "/__ratelimit/overrides", { domain: "ov", descriptor: "user=vip", rate_limit: { unlimited: true } });
    expect(await a.spend("vip", 8)).toEqual(Array(8).fill("OK"));
    const unlimited = await a.send("GET", "/__ratelimit/counters?domain=ov&descriptor=user=vip");
    expect(unlimited.status).toBe(404);
    expect(unlimited.body.detail).toContain("is unlimited by the override user=vip");
    await a.send("PUT", "/__ratelimit/overrides", {
      domain: "ov",
      descriptor: "user=big*",
      rate_limit: { unit: "hour", requests_per_unit: 1000 },
      note: "trial",
    });
    await a.spend("bigco", 2);
    const counter = await a.send("GET", "/__ratelimit/counters?domain=ov&descriptor=user=bigco");
    expect(counter.body).toMatchObject({
      override: { descriptor: "user=big*", expires_at: null, note: "trial" },
      limits: [{ requests_per_unit: 1000, unit: "hour", remaining: 998 }],
    });
    const plain = await a.send("GET", "/__ratelimit/counters?domain=ov&descriptor=user=small");
    expect(plain.body.override).toBeUndefined();
  });

  it("stops applying an override at its expiry on the isolate's clock", async () => {
    const a = api();
    const put = await a.send("PUT", "/__ratelimit/overrides", {
      domain: "ov",
      descriptor: "user=acme",
      rate_limit: { unit: "minute", requests_per_unit: 40 },
      expires_at: "2026-11-27T12:05:00Z",
    });
    expect(put.body.override.expires_at).toBe("2026-11-27T12:05:00.000Z");
    a.clock.at = Date.parse("2026-11-27T12:04:59.999Z");
    expect(await a.limitOf("acme")).toBe(40);
    a.clock.at = Date.parse("2026-11-27T12:05:00Z");
    expect(await a.limitOf("acme")).toBe(5);
    expect((await a.send("GET", "/__ratelimit/overrides?domain=ov")).body.overrides[0]).toMatchObject({ descriptor: "user=acme", expired: true });
  });

  it("refuses invalid input with every error in the rules' shape, and changes nothing", async () => {
    const a = api();
    await a.send("PUT", "/__ratelimit/overrides", { domain: "ov", descriptor: "user=acme", rate_limit: { unit: "minute", requests_per_unit: 50 } });
    const before = await a.send("GET", "/__ratelimit/overrides?domain=ov");
    const bad = await a.send("PUT", "/__ratelimit/overrides", {
      domain: "nowhere",
      descriptor: "user=a*,plan=b",
      rate_limit: { unit: "eon", requests_per_unit: -1, replaces: [{ name: "x" }] },
      expires_at: "2026-11-27T11:00:00Z",
      note: "n".repeat(501),
      colour: "red",
    });
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toMatch(/^The override was rejected \(\d+ errors\); the overrides in force are unchanged\.$/);
    const paths = bad.body.errors.map((e: { path: string }) => e.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        "$.colour",
        "$.descriptor",
        "$.rate_limit.unit",
        "$.rate_limit.requests_per_unit",
        "$.rate_limit.replaces",
        "$.expires_at",
        "$.note",
        "$.domain",
      ]),
    );
    for (const error of bad.body.errors) expect(Object.keys(error).sort()).toEqual(["message", "path"]);
    expect(bad.body.errors.find((e: { path: string }) => e.path === "$.descriptor").message).toContain('only the last value may end with the wildcard "*"');
    expect(bad.body.errors.find((e: { path: string }) => e.path === "$.domain").message).toContain('no domain "nowhere" in the rules in force');
    // A limit is validated as one in rules.json is (here: on_limit "delay" needs max_delay_ms).
    const delay = await a.send("PUT", "/__ratelimit/overrides", {
      domain: "ov",
      descriptor: "user=b",
      rate_limit: { unit: "minute", requests_per_unit: 5, algorithm: "gcra", on_limit: "delay" },
    });
    expect(delay.body.errors).toEqual([{ path: "$.rate_limit", message: 'missing required key "max_delay_ms" (required when "on_limit" is "delay")' }]);
    // A domain the rules do not have, alone, is refused too, and nothing is stored for it.
    const nowhere = await a.send("PUT", "/__ratelimit/overrides", { domain: "nowhere", descriptor: "user=x", rate_limit: { unlimited: true } });
    expect(nowhere.status).toBe(400);
    expect((await a.send("GET", "/__ratelimit/overrides?domain=nowhere")).body.overrides).toEqual([]);
    expect((await a.send("PUT", "/__ratelimit/overrides", "{not json")).status).toBe(400);
    expect((await a.send("PUT", "/__ratelimit/overrides", { domain: "ov", descriptor: "user=acme" })).body.errors).toEqual([
      { path: "$", message: 'missing required key "rate_limit" (a rate limit, or {"unlimited": true})' },
    ]);
    expect((await a.send("DELETE", "/__ratelimit/overrides?domain=ov&descriptor=user")).status).toBe(400);
    expect((await a.send("GET", "/__ratelimit/overrides")).status).toBe(400);
    expect(await a.send("GET", "/__ratelimit/overrides?domain=ov")).toEqual(before);
    expect(await a.limitOf("acme")).toBe(50);
  });

  it("bounds the body (413) and the count per domain (409), and the object itself refuses what the endpoint would", async () => {
    const a = api();
    const huge = await a.gateway.admin("/__ratelimit/overrides", { method: "PUT", body: "x".repeat(16 * 1024 + 1) });
    expect(huge.status).toBe(413);
    const stub = testEnv.RULES.getByName(a.objectName);
    expect(await stub.putOverride({ domain: "ov", descriptor: "user=", rate_limit: {} }, START)).toMatchObject({ ok: false, status: 400 });
    // Fill the domain to its bound through the stored format, as many PUTs would.
    await runInDurableObject(stub, (_instance, state) => {
      for (let i = 0; i < MAX_OVERRIDES_PER_DOMAIN; i++) {
        state.storage.sql.exec(
          "INSERT INTO overrides (domain, descriptor, rate_limit, expires_at, note, updated_at) VALUES ('ov', ?, ?, NULL, NULL, '2026-11-27T00:00:00.000Z')",
          `user=c${i}`,
          JSON.stringify({ unit: "minute", requests_per_unit: i + 1 }),
        );
      }
      state.storage.sql.exec("INSERT OR REPLACE INTO overrides_head (id, version) VALUES (0, 1)");
    });
    const full = await a.send("PUT", "/__ratelimit/overrides", {
      domain: "ov",
      descriptor: "user=one-more",
      rate_limit: { unit: "minute", requests_per_unit: 1 },
    });
    expect(full.status).toBe(409);
    expect(full.body.errors[0].message).toBe(`domain "ov" has ${MAX_OVERRIDES_PER_DOMAIN} overrides, the most it may have; delete some first`);
    // Replacing one that exists is no addition; and the isolate decides with all of them.
    expect(
      (await a.send("PUT", "/__ratelimit/overrides", { domain: "ov", descriptor: "user=c7", rate_limit: { unit: "minute", requests_per_unit: 77 } })).status,
    ).toBe(200);
    expect([await a.limitOf("c7"), await a.limitOf("c9998"), await a.limitOf("c10000")]).toEqual([77, 9999, 5]);
  });
});
