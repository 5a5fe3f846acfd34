import { describe, expect, it } from "vitest";
import { compileRules, compileRulesText } from "../../src/rules/index.ts";
import { validateRules } from "../../src/rules/validate.ts";
import { errorsOf } from "./helpers.ts";
import { INVALID, VALID } from "./fixtures.ts";

describe("compileRules rejects invalid rules with exact paths and messages", () => {
  it.each(INVALID.map((f) => [f.name, f] as const))("%s", (_name, fixture) => {
    expect(errorsOf(fixture.input)).toEqual(fixture.errors);
  });
});

describe("compileRules accepts valid rules", () => {
  it.each(VALID.map((f) => [f.name, f.input] as const))("%s", (_name, input) => {
    const result = compileRules(input);
    expect(result.ok ? "ok" : result.errors).toBe("ok");
  });

  it("accepts descriptors nested exactly 32 levels deep", () => {
    let node: Record<string, unknown> = { key: "leaf", rate_limit: { unit: "second", requests_per_unit: 1 } };
    for (let i = 1; i < 32; i++) node = { key: `k${i}`, descriptors: [node] };
    expect(compileRules({ domain: "t", descriptors: [node] }).ok).toBe(true);
  });

  it("does not mistake a value and a wildcard, or different keys, for duplicates", () => {
    const result = compileRules({
      domain: "t",
      descriptors: [{ key: "a" }, { key: "a", value: "1" }, { key: "a", value: "1*" }, { key: "b", value: "1" }, { key: "c", descriptors: [{ key: "a" }] }],
    });
    expect(result.ok).toBe(true);
  });

  it("summarises with singular and plural nouns", () => {
    const one = compileRules({
      domain: "t",
      descriptors: [{ key: "k", rate_limit: { unit: "second", requests_per_unit: 1 } }],
      routes: [{ match: {}, descriptors: [] }],
    });
    expect(one.ok && one.summary).toBe("rules.json: 1 domain, 1 descriptor, 1 limit, 1 route");
    const two = compileRules([{ domain: "a" }, { domain: "b" }], { source: "x.json" });
    expect(two.ok && two.summary).toBe("x.json: 2 domains, 0 descriptors, 0 limits, 0 routes");
  });
});

describe("every error is reported, not just the first", () => {
  const input = [
    {
      domain: "api",
      descriptors: [
        { key: "remote_address", rate_limt: { unit: "minute" } },
        { key: "remote_address", rate_limit: { unit: "minutes", requests_per_unit: -1, burst: 3 } },
        { key: "", unit: "second" },
        { key: "x", rate_limit: { unlimited: true, unit: "day", replaces: [{ name: "nope" }] } },
        "str",
      ],
      routes: [{ match: { path: "/*" }, descriptors: [[{ key: "a" }, { key: "b", value: "1", header: "X" }]] }],
    },
    { domain: "api", shards: 0, placment: "x" },
  ];

  it("collects all fifteen errors across both documents, in document order per domain", () => {
    expect(errorsOf(input)).toEqual([
      { path: "$[0].descriptors[0].rate_limt", message: 'unknown key "rate_limt" (did you mean "rate_limit"?)' },
      { path: "$[0].descriptors[1]", message: 'duplicate descriptor: key "remote_address" without a value is already defined at $[0].descriptors[0]' },
      { path: "$[0].descriptors[1].rate_limit.unit", message: 'unknown unit "minutes" (did you mean "minute"?)' },
      { path: "$[0].descriptors[1].rate_limit.requests_per_unit", message: "must be at least 0, got -1" },
      {
        path: "$[0].descriptors[1].rate_limit.burst",
        message: '"burst" does not apply to algorithm "sliding_window_counter" (the default); only token_bucket, leaky_bucket, gcra have a burst',
      },
      { path: "$[0].descriptors[2].unit", message: 'unknown key "unit" here (it belongs inside "rate_limit")' },
      { path: "$[0].descriptors[2].key", message: "must be a non-empty string" },
      { path: "$[0].descriptors[3].rate_limit.unit", message: '"unit" must not be set when "unlimited" is true' },
      { path: "$[0].descriptors[4]", message: "expected an object, got string" },
      {
        path: "$[0].routes[0].descriptors[0][0]",
        message:
          'entry "a" has no value source; set one of "value", "header", "query", "cookie", "jwt_claim", "json_body" (only the built-in keys remote_address, path, method, host need none)',
      },
      { path: "$[0].routes[0].descriptors[0][1]", message: 'entry has 2 value sources ("value", "header"); set exactly one' },
      { path: "$[0].descriptors[3].rate_limit.replaces[0].name", message: 'no rate limit in domain "api" is named "nope"' },
      { path: "$[1].placment", message: 'unknown key "placment" (did you mean "placement"?)' },
      { path: "$[1].shards", message: "must be at least 1, got 0" },
      { path: "$[1].domain", message: 'duplicate domain "api" (already defined at $[0])' },
    ]);
  });

  it("caps a pathological report at 1000 errors plus one note", () => {
    const descriptors = Array.from({ length: 1500 }, () => 7);
    const errors = errorsOf({ domain: "t", descriptors });
    expect(errors).toHaveLength(1001);
    expect(errors[1000]).toEqual({ path: "$", message: "too many errors; only the first 1000 are shown" });
  });

  it("does not report a replaces target as missing when its limit is invalid for another reason", () => {
    const errors = errorsOf({
      domain: "t",
      descriptors: [
        { key: "a", rate_limit: { name: "base", unit: "sec", requests_per_unit: 1 } },
        { key: "b", rate_limit: { unit: "second", requests_per_unit: 1, replaces: [{ name: "base" }] } },
      ],
    });
    expect(errors.map((e) => e.path)).toEqual(["$.descriptors[0].rate_limit.unit"]);
  });

  it("quotes keys that are not identifiers in paths", () => {
    expect(errorsOf({ domain: "t", "rate limit": 1 })).toEqual([
      {
        path: '$["rate limit"]',
        message:
          'unknown key "rate limit" (expected one of: $schema, domain, descriptors, routes, placement, shards, paths, duplicate_values, ipv6_prefix, jwt)',
      },
    ]);
  });
});

describe("compileRulesText", () => {
  it("compiles JSON text, ignoring a byte-order mark", () => {
    const result = compileRulesText('\uFEFF{"domain": "t"}');
    expect(result.ok).toBe(true);
  });

  it.each([
    ['{\n  "domain": "t",\n}', "invalid JSON at line 3, column 1: trailing comma before '}'"],
    ['{"domain": "t", "descriptors": [1,]}', "invalid JSON at line 1, column 35: trailing comma before ']'"],
    ["{\"domain\": 't'}", 'invalid JSON at line 1, column 12: expected a value, found "\'"'],
    ['{"domain": "t"', "invalid JSON at line 1, column 15: expected ',' or '}', found end of input"],
    ['{"domain": "t}', "invalid JSON at line 1, column 12: unterminated string"],
    ['{domain: "t"}', 'invalid JSON at line 1, column 2: expected a double-quoted property name, found "d"'],
    ['{"domain": "t"} x', 'invalid JSON at line 1, column 17: unexpected "x" after the end of the JSON value'],
    ["", "invalid JSON at line 1, column 1: expected a value, found end of input"],
    ['{"a": tru}', 'invalid JSON at line 1, column 7: expected a value, found "t"'],
    ['{"a": "\\x"}', "invalid JSON at line 1, column 8: invalid escape in string"],
  ])("locates the syntax error in %j", (text, message) => {
    expect(compileRulesText(text)).toEqual({ ok: false, errors: [{ path: "$", message }] });
  });
});

describe("validateRules (floodgate/rules)", () => {
  it.each(INVALID.map((f) => [f.name, f] as const))("gives the same errors as compileRules: %s", (_name, fixture) => {
    expect(validateRules(fixture.input)).toEqual(fixture.errors);
  });

  it.each(VALID.map((f) => [f.name, f.input] as const))("gives no error for valid rules: %s", (_name, input) => {
    expect(validateRules(input)).toEqual([]);
  });
});
