// Envoy's README examples 1–9, imported from YAML by `npm run rules:import`
// (test/fixtures/envoy/*.json are that command's output, checked by
// test/cli/rules-import.test.mjs), each behaving through /__ratelimit/json
// as the README describes. Each example's objects and isolate stand on one
// driven clock at the start of a day (so of every window the examples use):
// no window turns during a test, however slow the machine.
import { describe, expect, it } from "vitest";
import { shownValue } from "../../src/metrics/labels.ts";
import example1 from "../fixtures/envoy/example1.json";
import example2 from "../fixtures/envoy/example2.json";
import example3 from "../fixtures/envoy/example3.json";
import example4Flat from "../fixtures/envoy/example4-flat.json";
import example4Nested from "../fixtures/envoy/example4-nested.json";
import example5 from "../fixtures/envoy/example5.json";
import example6 from "../fixtures/envoy/example6.json";
import example7 from "../fixtures/envoy/example7.json";
import example8 from "../fixtures/envoy/example8.json";
import example9 from "../fixtures/envoy/example9.json";
import { testEnv, workerLabelKey } from "../support/app.ts";
import { drivenCounters, OBJECT_EPOCH } from "../support/driven-object.ts";
import { d, envoyApi } from "../support/envoy.ts";

/** The decision API over `rules`, its counter objects and isolate on one clock that stands at OBJECT_EPOCH (a day's start). */
function drivenApi(rules: unknown) {
  const now = () => OBJECT_EPOCH;
  return envoyApi(rules, { COUNTERS: drivenCounters(testEnv.COUNTERS, now) }, { now });
}

const reset = expect.stringMatching(/^\d+s$/);
const limit = (requestsPerUnit: number, unit: string, name?: string) => ({ ...(name ? { name } : {}), requestsPerUnit, unit });

describe("Example 1: one key, two values, 500 per second each", () => {
  const { json } = drivenApi(example1);

  it("counts database=users and database=default apart, and limits neither other value", async () => {
    const users = await json({ domain: "mongo_cps", descriptors: [d(["database", "users"])], hits_addend: 500 });
    expect(users.status).toBe(200);
    expect(users.body).toEqual({ overallCode: "OK", statuses: [{ code: "OK", currentLimit: limit(500, "SECOND"), durationUntilReset: "1s" }] });
    const over = await json({ domain: "mongo_cps", descriptors: [d(["database", "users"])] });
    expect(over.status).toBe(429);
    expect(over.body).toEqual({ overallCode: "OVER_LIMIT", statuses: [{ code: "OVER_LIMIT", currentLimit: limit(500, "SECOND"), durationUntilReset: "1s" }] });
    const other = await json({ domain: "mongo_cps", descriptors: [d(["database", "default"]), d(["database", "orders"])] });
    expect(other.status).toBe(200);
    expect(other.body.statuses).toEqual([{ code: "OK", currentLimit: limit(500, "SECOND"), limitRemaining: 499, durationUntilReset: "1s" }, { code: "OK" }]);
  });
});

describe("Example 2: nested descriptors, several per request", () => {
  const { json } = drivenApi(example2);

  it("allows 5 marketing messages a day to a number while counting its 100-a-day limit too", async () => {
    const send = () =>
      json({ domain: "messaging", descriptors: [d(["message_type", "marketing"], ["to_number", "2061111111"]), d(["to_number", "2061111111"])] });
    for (let i = 1; i <= 5; i++) {
      const res = await send();
      expect(res.status).toBe(200);
      expect(res.body.statuses[0]).toEqual({
        code: "OK",
        currentLimit: limit(5, "DAY"),
        ...(i < 5 ? { limitRemaining: 5 - i } : {}),
        durationUntilReset: reset,
      });
      expect(res.body.statuses[1]).toEqual({ code: "OK", currentLimit: limit(100, "DAY"), limitRemaining: 100 - i, durationUntilReset: reset });
    }
    const sixth = await send();
    expect(sixth.status).toBe(429);
    expect(sixth.body.overallCode).toBe("OVER_LIMIT");
    expect(sixth.body.statuses[0]).toEqual({ code: "OVER_LIMIT", currentLimit: limit(5, "DAY"), durationUntilReset: reset });
    expect(sixth.body.statuses[1]).toEqual({ code: "OK", currentLimit: limit(100, "DAY"), limitRemaining: 94, durationUntilReset: reset });
    // Another number has its own quota.
    const other = await json({ domain: "messaging", descriptors: [d(["message_type", "marketing"], ["to_number", "2062222222"])] });
    expect(other.body.statuses[0].limitRemaining).toBe(4);
  });

  it("gives a day-long reset that counts down within the day", async () => {
    const res = await json({ domain: "messaging", descriptors: [d(["to_number", "2063333333"])] });
    const seconds = Number(res.body.statuses[0].durationUntilReset.replace("s", ""));
    expect(seconds).toBeGreaterThan(0);
    expect(seconds).toBeLessThanOrEqual(86_400);
  });
});

describe("Example 3: key+value beats key alone", () => {
  const { json } = drivenApi(example3);

  it("gives 50.0.0.1 ten a second and blacklists 50.0.0.5 (requests_per_unit 0 is left out, as proto3 JSON does)", async () => {
    const ok = await json({ domain: "edge_proxy_per_ip", descriptors: [d(["remote_address", "50.0.0.1"])] });
    expect(ok.body).toEqual({ overallCode: "OK", statuses: [{ code: "OK", currentLimit: limit(10, "SECOND"), limitRemaining: 9, durationUntilReset: "1s" }] });
    const blocked = await json({ domain: "edge_proxy_per_ip", descriptors: [d(["remote_address", "50.0.0.5"])] });
    expect(blocked.status).toBe(429);
    expect(blocked.body).toEqual({ overallCode: "OVER_LIMIT", statuses: [{ code: "OVER_LIMIT", currentLimit: { unit: "SECOND" }, durationUntilReset: "1s" }] });
  });

  it("lets the 10th request of a second through and stops the 11th", async () => {
    const ip = d(["remote_address", "50.0.0.2"]);
    expect((await json({ domain: "edge_proxy_per_ip", descriptors: [ip], hits_addend: 9 })).status).toBe(200);
    const tenth = await json({ domain: "edge_proxy_per_ip", descriptors: [ip] });
    expect(tenth.body.statuses[0]).toEqual({ code: "OK", currentLimit: limit(10, "SECOND"), durationUntilReset: "1s" });
    expect((await json({ domain: "edge_proxy_per_ip", descriptors: [ip] })).status).toBe(429);
  });
});

describe("Example 4: a descriptor matches only a rule at its own depth", () => {
  const request = { domain: "example4", descriptors: [d(["key", "value"], ["subkey", "subvalue"])] };

  it("does not match the one-level rule with a two-entry descriptor", async () => {
    const { json } = drivenApi(example4Flat);
    expect((await json(request)).body).toEqual({ overallCode: "OK", statuses: [{ code: "OK" }] });
  });

  it("matches the two-level rule", async () => {
    const { json } = drivenApi(example4Nested);
    expect((await json(request)).body.statuses[0]).toEqual({ code: "OK", currentLimit: limit(300, "SECOND"), limitRemaining: 299, durationUntilReset: "1s" });
  });
});

describe("Example 5: unlimited", () => {
  const { json } = drivenApi(example5);

  it("answers OK with limitRemaining MaxUint32 for ldap, counts azure, and leaves an unknown key bare", async () => {
    const res = await json({ domain: "internal", descriptors: [d(["ldap", "x"]), d(["azure", "y"]), d(["gcp", "z"])] });
    expect(res.body).toEqual({
      overallCode: "OK",
      statuses: [
        { code: "OK", limitRemaining: 4294967295 },
        { code: "OK", currentLimit: limit(100, "MINUTE"), limitRemaining: 99, durationUntilReset: reset },
        { code: "OK" },
      ],
    });
  });
});

describe("Example 6: shadow_mode", () => {
  const { json } = drivenApi(example6);

  it("never limits user-a, past its limit too, and limits user-b at 20 a second", async () => {
    const userA = d(["service", "auth-service"], ["user", "user-a"]);
    const userB = d(["service", "auth-service"], ["user", "user-b"]);
    await json({ domain: "example6", descriptors: [userA], hits_addend: 10 });
    const shadowed = await json({ domain: "example6", descriptors: [userA] });
    expect(shadowed.status).toBe(200);
    expect(shadowed.body).toEqual({ overallCode: "OK", statuses: [{ code: "OK", currentLimit: limit(10, "SECOND"), durationUntilReset: "1s" }] });
    await json({ domain: "example6", descriptors: [userB], hits_addend: 20 });
    const limited = await json({ domain: "example6", descriptors: [userB] });
    expect(limited.status).toBe(429);
    expect(limited.body.statuses[0].code).toBe("OVER_LIMIT");
  });
});

describe("Example 7: replaces", () => {
  const { json } = drivenApi(example7);
  const first = d(["key_1", "value_1"], ["user", "bkthomps"]);
  const second = d(["key_2", "value_2"], ["user", "bkthomps"]);

  it("applies only the replacing 10/s limit when both match, leaving the replaced one untouched", async () => {
    const both = await json({ domain: "example7", descriptors: [first, second], hits_addend: 10 });
    expect(both.body).toEqual({
      overallCode: "OK",
      statuses: [{ code: "OK" }, { code: "OK", currentLimit: limit(10, "SECOND"), durationUntilReset: "1s" }],
    });
    expect((await json({ domain: "example7", descriptors: [first, second] })).status).toBe(429);
    // The 5/s limit did not count any of that.
    const alone = await json({ domain: "example7", descriptors: [first] });
    expect(alone.body.statuses[0]).toEqual({ code: "OK", currentLimit: limit(5, "SECOND", "specific_limit"), limitRemaining: 4, durationUntilReset: "1s" });
  });
});

describe("Example 8: detailed_metric", () => {
  const { json, admin } = drivenApi(example8);

  it("limits unlisted values at 10/min each and value1 at 20/min, and names metrics after the request's value", async () => {
    const res = await json({ domain: "example8", descriptors: [d(["key1", "unspecified_value"]), d(["key1", "unspecified_value2"]), d(["key1", "value1"])] });
    expect(res.body.statuses.map((s: { currentLimit: { requestsPerUnit: number } }) => s.currentLimit.requestsPerUnit)).toEqual([10, 10, 20]);
    const metrics = await (await admin("/__ratelimit/metrics")).text();
    // Named after the request's value as metrics keep it: a short prefix and a hash, never the value itself
    // (docs/metrics.md); value1's own node has no detailed_metric, so it is named after the rule, as written.
    const shown = (value: string) => `key1_${shownValue("key1", value, workerLabelKey())}`;
    expect(metrics).toContain(`ratelimit_service_rate_limit_total_hits{domain="example8",descriptor="${shown("unspecified_value")}",limit="key1:10/1m"} 1`);
    expect(metrics).toContain(`ratelimit_service_rate_limit_total_hits{domain="example8",descriptor="${shown("unspecified_value2")}",limit="key1:10/1m"} 1`);
    expect(metrics).toContain(`ratelimit_service_rate_limit_total_hits{domain="example8",descriptor="key1_value1",limit="key1=value1:20/1m"} 1`);
    expect(metrics).not.toContain("unspecified_value");
    expect(metrics).not.toContain('descriptor="key1",');
  });
});

describe("Example 9: wildcards anywhere in the value", () => {
  const { json } = drivenApi(example9);
  const limited = (s: { currentLimit?: unknown }) => s.currentLimit !== undefined;

  it("matches trailing, middle and multiple wildcards, and nothing else", async () => {
    const res = await json({
      domain: "example9",
      descriptors: [
        d(["key1", "value1"]),
        d(["key1", "valueXYZ"]),
        d(["key1", "valu"]),
        d(["path", "/api/123/action"]),
        d(["path", "/api/user-id/action"]),
        d(["path", "/api/123/other"]),
        d(["route", "/api/v1/resource/123/action"]),
        d(["route", "/api/v2/resource/456/action"]),
        d(["route", "/api/v1/resource/123/other"]),
      ],
    });
    expect(res.body.statuses.map(limited)).toEqual([true, true, false, true, true, false, true, true, false]);
  });

  it("keeps a separate counter per matching value", async () => {
    const a = await json({ domain: "example9", descriptors: [d(["key1", "value-a"])], hits_addend: 20 });
    const b = await json({ domain: "example9", descriptors: [d(["key1", "value-b"])] });
    expect(a.status).toBe(200);
    expect(b.body.statuses[0].limitRemaining).toBe(19);
  });
});
