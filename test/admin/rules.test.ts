// Hot rules: PUT/GET/DELETE /__ratelimit/rules, applied on every isolate,
// kept across object restarts; invalid uploads change nothing.
import { env } from "cloudflare:workers";
import { evictAllDurableObjects } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/config.ts";
import { d, envoyApi } from "../support/envoy.ts";
import { throwingRules } from "../support/failing.ts";

const before = { domain: "hot", descriptors: [{ key: "k", rate_limit: { unit: "minute", requests_per_unit: 5 } }] };
const after = [
  { domain: "hot", descriptors: [{ key: "k", rate_limit: { unit: "hour", requests_per_unit: 2 } }] },
  { domain: "hot-new", descriptors: [{ key: "k", rate_limit: { unit: "day", requests_per_unit: 3 } }] },
];
const invalid = {
  domain: "hot",
  descriptors: [
    { key: "k", rate_limt: {} },
    { key: "k", rate_limit: { unit: "eon", requests_per_unit: -1 } },
  ],
};

let counter = 0;
const fresh = () => `rules-test-${++counter}`;
const put = (api: ReturnType<typeof envoyApi>, body: unknown) =>
  api.admin("/__ratelimit/rules", {
    method: "PUT",
    body: typeof body === "string" ? body : JSON.stringify(body),
    headers: { "content-type": "application/json" },
  });
const limitOf = async (api: ReturnType<typeof envoyApi>, domain: string, value: string) =>
  (await api.json({ domain, descriptors: [d(["k", value])], hits_addend: 0 })).body.statuses[0].currentLimit ?? null;

describe("PUT /__ratelimit/rules", () => {
  it("takes a rules file of up to 4 MiB; one byte more is a 413 that changes nothing", async () => {
    const objectName = fresh();
    const api = envoyApi(before, {}, { objectName });
    // The documented cap (docs/admin-api.md: "up to 4 MiB"), reached with trailing whitespace, which JSON allows.
    const cap = 4 * 1024 * 1024;
    const text = JSON.stringify(after);
    const tooLarge = await put(api, text + " ".repeat(cap + 1 - text.length));
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.headers.get("content-type")).toBe("application/problem+json");
    expect(await (await api.admin("/__ratelimit/rules")).json()).toMatchObject({ version: 0, source: "bundled" });
    const atCap = await put(api, text + " ".repeat(cap - text.length));
    expect(atCap.status).toBe(200);
    expect(await atCap.json()).toMatchObject({ version: 1, source: "stored" });
    expect(await limitOf(api, "hot-new", "a")).toEqual({ requestsPerUnit: 3, unit: "DAY" });
  });

  it("applies valid rules at once on the isolate that took them, with a version in GET", async () => {
    const objectName = fresh();
    const api = envoyApi(before, {}, { objectName });
    expect(await limitOf(api, "hot", "a")).toEqual({ requestsPerUnit: 5, unit: "MINUTE" });
    const initial = await (await api.admin("/__ratelimit/rules")).json();
    expect(initial).toEqual({ version: 0, source: "bundled", updated_at: null, rules: before });

    const res = await put(api, after);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ version: 1, source: "stored", summary: "rules: 2 domains, 2 descriptors, 2 limits, 0 routes" });
    expect(await limitOf(api, "hot", "a")).toEqual({ requestsPerUnit: 2, unit: "HOUR" });
    expect(await limitOf(api, "hot-new", "a")).toEqual({ requestsPerUnit: 3, unit: "DAY" });

    const got = await (await api.admin("/__ratelimit/rules")).json<{ version: number; source: string; updated_at: string; rules: unknown }>();
    expect(got.version).toBe(1);
    expect(got.source).toBe("stored");
    expect(got.rules).toEqual(after);
    expect(Date.parse(got.updated_at)).not.toBeNaN();
  });

  it("rejects invalid rules with 400 and every error with its path, changing nothing", async () => {
    const objectName = fresh();
    const api = envoyApi(before, {}, { objectName });
    expect((await put(api, after)).status).toBe(200);
    const res = await put(api, invalid);
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    const body = await res.json<{ detail: string; errors: { path: string; message: string }[] }>();
    expect(body.detail).toMatch(/rejected \(4 errors\); the rules in force are unchanged/);
    expect(body.errors).toEqual([
      { path: "$.descriptors[0].rate_limt", message: 'unknown key "rate_limt" (did you mean "rate_limit"?)' },
      { path: "$.descriptors[1]", message: 'duplicate descriptor: key "k" without a value is already defined at $.descriptors[0]' },
      { path: "$.descriptors[1].rate_limit.unit", message: 'unknown unit "eon" (expected one of: second, minute, hour, day, week, month, year)' },
      { path: "$.descriptors[1].rate_limit.requests_per_unit", message: "must be at least 0, got -1" },
    ]);
    expect((await put(api, "{ not json")).status).toBe(400);
    expect(await limitOf(api, "hot", "b")).toEqual({ requestsPerUnit: 2, unit: "HOUR" });
    expect((await (await api.admin("/__ratelimit/rules")).json<{ version: number }>()).version).toBe(1);
  });

  it("keeps the accepted rules, and not the rejected ones, across a restart of every object", async () => {
    const objectName = fresh();
    const api = envoyApi(before, {}, { objectName });
    expect((await put(api, after)).status).toBe(200);
    expect((await put(api, invalid)).status).toBe(400);
    await evictAllDurableObjects();
    // A new app is a fresh isolate: nothing cached, everything from the object.
    const restarted = envoyApi(before, {}, { objectName });
    expect(await limitOf(restarted, "hot-new", "c")).toEqual({ requestsPerUnit: 3, unit: "DAY" });
    const got = await (await restarted.admin("/__ratelimit/rules")).json<{ version: number; rules: unknown }>();
    expect(got.version).toBe(1);
    expect(got.rules).toEqual(after);
  });

  it("is applied by another isolate after its next check, in the background, without a redeploy", async () => {
    const objectName = fresh();
    const a = envoyApi(before, {}, { objectName });
    const b = envoyApi(before, {}, { objectName, refreshAfterMs: 0 });
    expect(await limitOf(b, "hot", "e")).toEqual({ requestsPerUnit: 5, unit: "MINUTE" });
    expect((await put(a, after)).status).toBe(200);
    // This request still uses the cached rules (no request waits for the object); its waitUntil fetches the new ones.
    await limitOf(b, "hot", "e");
    expect(await limitOf(b, "hot", "e")).toEqual({ requestsPerUnit: 2, unit: "HOUR" });
  });

  it("DELETE goes back to the bundled rules as a new version", async () => {
    const objectName = fresh();
    const api = envoyApi(before, {}, { objectName });
    expect((await put(api, after)).status).toBe(200);
    const res = await api.admin("/__ratelimit/rules", { method: "DELETE" });
    expect(await res.json()).toEqual({ version: 2, source: "bundled" });
    expect(await limitOf(api, "hot", "f")).toEqual({ requestsPerUnit: 5, unit: "MINUTE" });
    const got = await (await api.admin("/__ratelimit/rules")).json<{ version: number; source: string; rules: unknown }>();
    expect(got).toMatchObject({ version: 2, source: "bundled", rules: before });
  });

  it("keeps deciding with the last good rules when the rules object is unreachable", async () => {
    // A real object whose every call throws (test/support/failing-objects.mjs).
    const api = envoyApi(before, { RULES: throwingRules }, { objectName: fresh() });
    const res = await api.json({ domain: "hot", descriptors: [d(["k", "g"])] });
    expect(res.status).toBe(200);
    expect(res.body.statuses[0].currentLimit).toEqual({ requestsPerUnit: 5, unit: "MINUTE" });
  });
});

describe("RulesObject", () => {
  it("validates again before storing, whoever calls it", async () => {
    const stub = (env as unknown as Env).RULES.getByName(fresh());
    const result = await stub.put(JSON.stringify(invalid));
    expect(result.ok).toBe(false);
    expect(await stub.since(-1)).toEqual({ version: 0, source: "bundled" });
  });

  it("stores rules larger than one SQLite row", async () => {
    const stub = (env as unknown as Env).RULES.getByName(fresh());
    const descriptors = Array.from({ length: 12_000 }, (_, i) => ({
      key: "k",
      value: `value-${i}-${"x".repeat(150)}`,
      rate_limit: { unit: "minute", requests_per_unit: 1 },
    }));
    const text = JSON.stringify({ domain: "big", descriptors });
    expect(text.length).toBeGreaterThan(2_000_000);
    const result = await stub.put(text);
    expect(result.ok).toBe(true);
    expect((await stub.since(0))?.text).toBe(text);
  });
});
