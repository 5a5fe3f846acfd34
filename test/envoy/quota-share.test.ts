// Envoy's share_threshold (its README's Example 11) and quota_mode (its
// examples/ratelimit/config/example.yaml services), imported from YAML by
// `npm run rules:import` (test/fixtures/envoy/example11.json and
// example-quota.json, checked by test/cli/rules-import.test.mjs), behaving
// through /__ratelimit/json as envoyproxy/ratelimit does.
import { beforeEach, describe, expect, it } from "vitest";
import example11 from "../fixtures/envoy/example11.json";
import quota from "../fixtures/envoy/example-quota.json";
import { testEnv } from "../support/app.ts";
import { drivenCounters, OBJECT_EPOCH } from "../support/driven-object.ts";
import { d, envoyApi as realTimeApi } from "../support/envoy.ts";

/**
 * One driven clock per test (docs/testing.md) for the isolate and the counter
 * objects: it stands still, so no window turns during a test. Each test starts
 * in a later hour than the last, as the objects are shared by the whole file.
 */
const clock = { at: OBJECT_EPOCH };
const now = () => clock.at;
beforeEach(() => {
  clock.at = Math.ceil((clock.at + 1) / 3_600_000) * 3_600_000 + 2_500;
});
const envoyApi = (rules: unknown) => realTimeApi(rules, { COUNTERS: drivenCounters(testEnv.COUNTERS, now) }, { now });

const codes = (body: { statuses: { code: string }[] }) => body.statuses.map((s) => s.code);

describe("Example 11: share_threshold", () => {
  const { json, admin } = envoyApi(example11);

  it("counts every files/* value in one threshold of 10 per hour", async () => {
    expect((await json({ domain: "example11", descriptors: [d(["files", "files/a.pdf"])], hits_addend: 5 })).status).toBe(200);
    expect((await json({ domain: "example11", descriptors: [d(["files", "files/b.csv"])], hits_addend: 5 })).status).toBe(200);
    const c = await json({ domain: "example11", descriptors: [d(["files", "files/c.txt"])] });
    expect(c.status).toBe(429);
    expect(codes(c.body)).toEqual(["OVER_LIMIT"]);
    // The admin API reads the same shared counter for any value the pattern matches.
    const res = await admin(`/__ratelimit/counters?domain=example11&descriptor=files=${encodeURIComponent("files/zzz")}`);
    expect(res.status).toBe(200);
    expect((await res.json<{ limits: { remaining: number }[] }>()).limits[0].remaining).toBe(0);
  });

  it("keeps one threshold per files_no_share/* value", async () => {
    expect((await json({ domain: "example11", descriptors: [d(["files_no_share", "files_no_share/a.pdf"])], hits_addend: 10 })).status).toBe(200);
    const a = await json({ domain: "example11", descriptors: [d(["files_no_share", "files_no_share/a.pdf"])] });
    expect(a.status).toBe(429);
    const b = await json({ domain: "example11", descriptors: [d(["files_no_share", "files_no_share/b.csv"])], hits_addend: 10 });
    expect(b.status).toBe(200);
  });
});

describe("quota_mode: over only when every quota descriptor is over", () => {
  const { json } = envoyApi(quota);
  const s1 = d(["service", "service_1"]); // 1 a minute
  const s2 = d(["service", "service_2"]); // 2 a minute
  const answer = async (descriptors: unknown[], hits_addend?: number) => {
    const res = await json({ domain: "quota", descriptors, ...(hits_addend ? { hits_addend } : {}) });
    return [res.status, res.body.overallCode, ...codes(res.body)];
  };

  // One story: the counters of one minute carry from step to step.
  it("lets a request through while a quota descriptor has quota, refuses once all are over or a plain one is", async () => {
    expect(await answer([s1])).toEqual([200, "OK", "OK"]);
    // service_1 is spent, service_2 is not: each descriptor keeps its own code, the request passes.
    expect(await answer([s1, s2])).toEqual([200, "OK", "OVER_LIMIT", "OK"]);
    // The request's only quota descriptor is over.
    expect(await answer([s1, d(["user", "u2"])])).toEqual([429, "OVER_LIMIT", "OVER_LIMIT", "OK"]);
    // A plain descriptor over its limit refuses whatever the quotas say.
    expect(await answer([d(["user", "u1"])], 5)).toEqual([200, "OK", "OK"]);
    expect(await answer([s2, d(["user", "u1"])])).toEqual([429, "OVER_LIMIT", "OK", "OVER_LIMIT"]);
    // Now service_2 is spent too: every quota descriptor is over.
    expect(await answer([s1, s2])).toEqual([429, "OVER_LIMIT", "OVER_LIMIT", "OVER_LIMIT"]);
  });
});
