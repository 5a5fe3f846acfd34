// POST /__ratelimit/json against the running app: Envoy's request and
// response shapes, HTTP codes, hits_addend, overrides, shadow and failure modes.
import { beforeEach, describe, expect, it } from "vitest";
import { MAX_JSON_BODY_BYTES } from "../../src/admin/json.ts";
import type { Env } from "../../src/config.ts";
import { testEnv } from "../support/app.ts";
import { drivenCounters, OBJECT_EPOCH } from "../support/driven-object.ts";
import { d, envoyApi as realTimeApi } from "../support/envoy.ts";
import { throwingCounters } from "../support/failing.ts";

const rules = [
  {
    domain: "json-api",
    descriptors: [
      { key: "user", rate_limit: { unit: "minute", requests_per_unit: 10, algorithm: "fixed_window" } },
      { key: "named", rate_limit: { name: "per-named", unit: "hour", requests_per_unit: 5 } },
      { key: "free", value: "yes" },
      { key: "shadow", shadow_mode: true, rate_limit: { unit: "minute", requests_per_unit: 1 } },
      {
        key: "burst",
        rate_limits: [
          { unit: "second", requests_per_unit: 100, algorithm: "token_bucket", burst: 3 },
          { unit: "day", requests_per_unit: 1000 },
        ],
      },
      { key: "weekly", rate_limit: { unit: "week", requests_per_unit: 7 } },
      { key: "blocked", rate_limit: { unit: "second", requests_per_unit: 0 } },
    ],
  },
  { domain: "json-api-2", descriptors: [{ key: "user", rate_limit: { unit: "second", requests_per_unit: 2 } }] },
];

/**
 * One driven clock (docs/testing.md) for the isolate and the counter objects
 * of every API in this file: it stands still, so no window turns during a
 * test. Each test starts 2.5 s into a later hour than the last, as the
 * objects are shared by the whole file and must never see their clock go back.
 */
const clock = { at: OBJECT_EPOCH };
const now = () => clock.at;
beforeEach(() => {
  clock.at = Math.ceil((clock.at + 1) / 3_600_000) * 3_600_000 + 2_500;
});
// DECISION_TIMEOUT_MS, a timer on the machine's clock, so long that a loaded machine cannot turn an answer into failure-open.
const timeless: Partial<Env> = { DECISION_TIMEOUT_MS: "600000" };
const envoyApi = (vars: Partial<Env> = {}) => realTimeApi(rules, { COUNTERS: drivenCounters(testEnv.COUNTERS, now), ...timeless, ...vars }, { now });
const { json } = envoyApi();
let n = 0;
const unique = (prefix: string) => `${prefix}-${++n}-${Date.now()}`;

describe("POST /__ratelimit/json: answers", () => {
  it("answers 200 with proto3 JSON: currentLimit, limitRemaining and durationUntilReset", async () => {
    const res = await json({ domain: "json-api", descriptors: [d(["user", unique("u")])] });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(res.body).toEqual({
      overallCode: "OK",
      // 2.5 s into the minute: Envoy counts the whole seconds to its end.
      statuses: [{ code: "OK", currentLimit: { requestsPerUnit: 10, unit: "MINUTE" }, limitRemaining: 9, durationUntilReset: "58s" }],
    });
  });

  it("shows an explicit rate limit name in currentLimit, as Envoy does", async () => {
    const res = await json({ domain: "json-api", descriptors: [d(["named", unique("n")])] });
    expect(res.body.statuses[0].currentLimit).toEqual({ name: "per-named", requestsPerUnit: 5, unit: "HOUR" });
  });

  it("reports units beyond Envoy's day by name (WEEK)", async () => {
    const res = await json({ domain: "json-api", descriptors: [d(["weekly", unique("w")])] });
    expect(res.body.statuses[0].currentLimit).toEqual({ requestsPerUnit: 7, unit: "WEEK" });
  });

  it("answers bare OK for whitelisted and unmatched descriptors, and for an unknown domain", async () => {
    const res = await json({ domain: "json-api", descriptors: [d(["free", "yes"]), d(["nothing", "here"]), { entries: [] }] });
    expect(res.body).toEqual({ overallCode: "OK", statuses: [{ code: "OK" }, { code: "OK" }, { code: "OK" }] });
    const unknown = await json({ domain: "no-such-domain", descriptors: [d(["user", "x"]), d(["user", "y"])] });
    expect(unknown.status).toBe(200);
    expect(unknown.body).toEqual({ overallCode: "OK", statuses: [{ code: "OK" }, { code: "OK" }] });
  });

  it("answers 429 with OVER_LIMIT when any descriptor is over, one status per descriptor in order", async () => {
    const user = unique("u");
    await json({ domain: "json-api", descriptors: [d(["user", user])], hits_addend: 10 });
    const res = await json({ domain: "json-api", descriptors: [d(["free", "yes"]), d(["user", user])] });
    expect(res.status).toBe(429);
    expect(res.body.overallCode).toBe("OVER_LIMIT");
    expect(res.body.statuses[0]).toEqual({ code: "OK" });
    expect(res.body.statuses[1]).toEqual({
      code: "OVER_LIMIT",
      currentLimit: { requestsPerUnit: 10, unit: "MINUTE" },
      durationUntilReset: "58s",
    });
  });

  it("keeps domains apart: the same descriptor counts separately in another domain", async () => {
    const user = unique("u");
    await json({ domain: "json-api", descriptors: [d(["user", user])] });
    const other = await json({ domain: "json-api-2", descriptors: [d(["user", user])] });
    expect(other.body.statuses[0]).toEqual({ code: "OK", currentLimit: { requestsPerUnit: 2, unit: "SECOND" }, limitRemaining: 1, durationUntilReset: "1s" });
  });

  it("reports a node's several windows by the tightest one", async () => {
    const key = unique("b");
    const res = await json({ domain: "json-api", descriptors: [d(["burst", key])], hits_addend: 3 });
    // The burst of 3 is spent; a token comes back in 10 ms, reported as the next whole second.
    expect(res.body.statuses[0]).toEqual({ code: "OK", currentLimit: { requestsPerUnit: 100, unit: "SECOND" }, durationUntilReset: "1s" });
    const over = await json({ domain: "json-api", descriptors: [d(["burst", key])], hits_addend: 3 });
    expect(over.status).toBe(429);
    expect(over.body.statuses[0].currentLimit).toEqual({ requestsPerUnit: 100, unit: "SECOND" });
  });
});

describe("POST /__ratelimit/json: hits_addend", () => {
  it("treats a request hits_addend of 0 as 1, as Envoy's service does", async () => {
    const res = await json({ domain: "json-api", descriptors: [d(["user", unique("u")])], hits_addend: 0 });
    expect(res.body.statuses[0].limitRemaining).toBe(9);
  });

  it("accepts hitsAddend (JSON name) and numbers as strings, as protojson does", async () => {
    const res = await json({ domain: "json-api", descriptors: [d(["user", unique("u")])], hitsAddend: "4" });
    expect(res.body.statuses[0].limitRemaining).toBe(6);
  });

  it("applies a per-descriptor hits_addend to its descriptor only, and 0 there reads without counting", async () => {
    const a = unique("a");
    const b = unique("b");
    const res = await json({
      domain: "json-api",
      hits_addend: 2,
      descriptors: [{ ...d(["user", a]), hits_addend: 5 }, d(["user", b]), { ...d(["user", a]), hitsAddend: 0 }],
    });
    expect(res.body.statuses.map((s: { limitRemaining: number }) => s.limitRemaining)).toEqual([5, 8, 5]);
    const again = await json({ domain: "json-api", descriptors: [{ ...d(["user", a]), hits_addend: 0 }] });
    expect(again.body.statuses[0].limitRemaining).toBe(5);
  });

  it("answers a 0-hit check of a limit of 0 OK, as Envoy (0 hits do not pass 0)", async () => {
    const res = await json({ domain: "json-api", descriptors: [{ ...d(["blocked", "x"]), hits_addend: 0 }, d(["blocked", "x"])] });
    expect(res.body.statuses).toEqual([
      { code: "OK", currentLimit: { unit: "SECOND" }, durationUntilReset: "1s" },
      { code: "OVER_LIMIT", currentLimit: { unit: "SECOND" }, durationUntilReset: "1s" },
    ]);
  });

  it("answers OVER_LIMIT, not an error, for the largest hits_addend on every kind of algorithm", async () => {
    const huge = Number.MAX_SAFE_INTEGER;
    const res = await json({
      domain: "json-api",
      descriptors: ["user", "named", "burst", "weekly"].map((k) => ({ ...d([k, unique("h")]), hits_addend: huge })),
    });
    expect(res.status).toBe(429);
    expect(res.body.statuses.map((s: { code: string }) => s.code)).toEqual(["OVER_LIMIT", "OVER_LIMIT", "OVER_LIMIT", "OVER_LIMIT"]);
  });

  it("answers OVER_LIMIT without consuming when the hits do not fit", async () => {
    const user = unique("u");
    const big = await json({ domain: "json-api", descriptors: [d(["user", user])], hits_addend: 11 });
    expect(big.status).toBe(429);
    expect((await json({ domain: "json-api", descriptors: [d(["user", user])] })).body.statuses[0].limitRemaining).toBe(9);
  });
});

describe("POST /__ratelimit/json: Envoy's per-descriptor limit override", () => {
  it("decides with the request's own limit, a fixed window", async () => {
    const descriptor = { ...d(["anything", unique("o")]), limit: { requests_per_unit: 3, unit: "HOUR" } };
    const res = await json({ domain: "json-api", descriptors: [descriptor] });
    expect(res.body.statuses[0]).toEqual({
      code: "OK",
      currentLimit: { requestsPerUnit: 3, unit: "HOUR" },
      limitRemaining: 2,
      durationUntilReset: "3598s",
    });
    const camel = { ...d(["anything", unique("o")]), limit: { requestsPerUnit: 2, unit: 2 } };
    expect((await json({ domain: "json-api", descriptors: [camel] })).body.statuses[0].currentLimit).toEqual({ requestsPerUnit: 2, unit: "MINUTE" });
  });

  it("is ignored for an unknown domain, as in Envoy", async () => {
    const res = await json({ domain: "nowhere", descriptors: [{ ...d(["k", "v"]), limit: { requests_per_unit: 0, unit: "SECOND" } }] });
    expect(res.body).toEqual({ overallCode: "OK", statuses: [{ code: "OK" }] });
  });
});

describe("POST /__ratelimit/json: shadow mode", () => {
  it("answers OK for a shadow_mode descriptor past its limit", async () => {
    const key = unique("s");
    await json({ domain: "json-api", descriptors: [d(["shadow", key])] });
    const res = await json({ domain: "json-api", descriptors: [d(["shadow", key])] });
    expect(res.status).toBe(200);
    expect(res.body.statuses[0]).toEqual({
      code: "OK",
      currentLimit: { requestsPerUnit: 1, unit: "MINUTE" },
      durationUntilReset: "58s",
    });
  });

  it("with SHADOW_MODE=true answers overall OK (HTTP 200) but keeps each status's OVER_LIMIT, as Envoy", async () => {
    const shadowed = envoyApi({ SHADOW_MODE: "true" });
    const user = unique("u");
    await shadowed.json({ domain: "json-api", descriptors: [d(["user", user])], hits_addend: 10 });
    const res = await shadowed.json({ domain: "json-api", descriptors: [d(["user", user])] });
    expect(res.status).toBe(200);
    expect(res.body.overallCode).toBe("OK");
    expect(res.body.statuses[0].code).toBe("OVER_LIMIT");
  });
});

describe("POST /__ratelimit/json: bad requests get 400 naming the JSON path", () => {
  const cases: [string, unknown, string, RegExp][] = [
    ["not JSON", "{domain:", "$", /not JSON \(line 1, column 2/],
    ["an array body", "[]", "$", /expected an object, got array/],
    ["missing domain", { descriptors: [d(["k", "v"])] }, "$.domain", /domain must not be empty/],
    ["empty domain", { domain: "", descriptors: [d(["k", "v"])] }, "$.domain", /domain must not be empty/],
    ["domain not a string", { domain: 5, descriptors: [d(["k", "v"])] }, "$.domain", /expected a string, got number/],
    ["no descriptors", { domain: "json-api" }, "$.descriptors", /descriptor list must not be empty/],
    ["descriptors not an array", { domain: "json-api", descriptors: {} }, "$.descriptors", /expected an array, got object/],
    ["a descriptor not an object", { domain: "json-api", descriptors: ["k=v"] }, "$.descriptors[0]", /expected an object, got string/],
    [
      "an entry not an object",
      { domain: "json-api", descriptors: [{ entries: [["k", "v"]] }] },
      "$.descriptors[0].entries[0]",
      /expected an object, got array/,
    ],
    [
      "a value not a string",
      { domain: "json-api", descriptors: [{ entries: [{ key: "k", value: 7 }] }] },
      "$.descriptors[0].entries[0].value",
      /expected a string, got number/,
    ],
    ["an unknown field", { domain: "json-api", descriptors: [d(["k", "v"])], hits: 2 }, "$.hits", /unknown field "hits"/],
    ["a negative hits_addend", { domain: "json-api", descriptors: [d(["k", "v"])], hits_addend: -1 }, "$.hits_addend", /non-negative integer, got -1/],
    [
      "a fractional hits_addend",
      { domain: "json-api", descriptors: [{ ...d(["k", "v"]), hits_addend: 1.5 }] },
      "$.descriptors[0].hits_addend",
      /non-negative integer, got 1.5/,
    ],
    ["a hits_addend past uint32", { domain: "json-api", descriptors: [d(["k", "v"])], hits_addend: 4294967296 }, "$.hits_addend", /at most 4294967295/],
    ["both field names", { domain: "json-api", descriptors: [d(["k", "v"])], hits_addend: 1, hitsAddend: 1 }, "$.hitsAddend", /given twice/],
    [
      "a bad override unit",
      { domain: "json-api", descriptors: [{ ...d(["k", "v"]), limit: { requests_per_unit: 1, unit: "FORTNIGHT" } }] },
      "$.descriptors[0].limit.unit",
      /expected one of SECOND/,
    ],
  ];
  for (const [name, body, path, message] of cases) {
    it(name, async () => {
      const res = await json(body);
      expect(res.status).toBe(400);
      expect(res.headers.get("content-type")).toBe("application/problem+json");
      expect(res.body.detail).toMatch(message);
      expect(res.body.path ?? "$").toBe(path);
    });
  }

  it("more than 1,000 descriptors", async () => {
    const res = await json({ domain: "json-api", descriptors: Array.from({ length: 1001 }, () => d(["k", "v"])) });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/at most 1000 descriptors/);
  });

  it("a body over 1 MiB is 413", async () => {
    const res = await json({ domain: "json-api", descriptors: [d(["k", "x".repeat(MAX_JSON_BODY_BYTES)])] });
    expect(res.status).toBe(413);
    expect(res.body.title).toBe("Payload Too Large");
  });
});

describe("POST /__ratelimit/json: FAILURE_MODE", () => {
  // Real objects whose every call throws (test/support/failing-objects.mjs).
  const brokenCounters = () => throwingCounters;

  it("open: every descriptor OK, marked failure-open", async () => {
    const { json: open } = envoyApi({ COUNTERS: brokenCounters(), FAILURE_MODE: "open" });
    const res = await open({ domain: "json-api", descriptors: [d(["user", "x"]), d(["free", "yes"])] });
    expect(res.status).toBe(200);
    expect(res.headers.get("X-RateLimit-Decision")).toBe("failure-open");
    expect(res.body).toEqual({ overallCode: "OK", statuses: [{ code: "OK" }, { code: "OK" }] });
  });

  it("closed: 503 with Retry-After", async () => {
    const { json: closed } = envoyApi({ COUNTERS: brokenCounters(), FAILURE_MODE: "closed" });
    const res = await closed({ domain: "json-api", descriptors: [d(["user", "x"])] });
    expect(res.status).toBe(503);
    expect(res.headers.get("Retry-After")).toBe("1");
  });
});
