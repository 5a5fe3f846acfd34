/**
 * `count_when` on a rate limit, `cost` and `cost_from_response` on a route:
 * each mistake reported at its JSON path, and rules.schema.json agreeing
 * with the compiler on every fixture.
 */
import { describe, expect, it } from "vitest";
import schema from "../../rules.schema.json";
import { countsStatus } from "../../src/rules/count-when.ts";
import { compileRules } from "../../src/rules/index.ts";
import { domainOf, errorsOf } from "./helpers.ts";
import { validates } from "./mini-schema.ts";

const RL = "$.descriptors[0].rate_limit";
const R = "$.routes[0]";
const limited = (extra: Record<string, unknown>) => ({
  domain: "t",
  descriptors: [{ key: "k", rate_limit: { unit: "minute", requests_per_unit: 5, ...extra } }],
});
const routed = (extra: Record<string, unknown>) => ({
  domain: "t",
  descriptors: [{ key: "k", rate_limit: { unit: "minute", requests_per_unit: 5 } }],
  routes: [{ match: {}, descriptors: [[{ key: "k", value: "v" }]], ...extra }],
});

const INVALID: readonly [string, unknown, string, string][] = [
  ["count_when not an object", limited({ count_when: [401] }), `${RL}.count_when`, "expected an object, got array"],
  ["count_when without status", limited({ count_when: {} }), `${RL}.count_when`, 'missing required key "status"'],
  ["count_when misspelled key", limited({ count_when: { statuses: [401] } }), `${RL}.count_when.statuses`, 'unknown key "statuses" (did you mean "status"?)'],
  [
    "count_when empty status",
    limited({ count_when: { status: [] } }),
    `${RL}.count_when.status`,
    'must list at least one status, class ("4xx") or range ("500-599")',
  ],
  [
    "count_when status out of range",
    limited({ count_when: { status: [401, 600] } }),
    `${RL}.count_when.status[1]`,
    "status 600 is not an HTTP status (100–599)",
  ],
  [
    "count_when bad class",
    limited({ count_when: { status: ["6xx"] } }),
    `${RL}.count_when.status[0]`,
    '"6xx" is not a status (401), class ("4xx") or range ("500-599")',
  ],
  [
    "count_when reversed range",
    limited({ count_when: { status: ["599-500"] } }),
    `${RL}.count_when.status[0]`,
    'range "599-500" must run from a lower to a higher status within 100–599',
  ],
  [
    "count_when status a boolean",
    limited({ count_when: { status: [true] } }),
    `${RL}.count_when.status[0]`,
    'expected a status (401), class ("4xx") or range ("500-599"), got boolean',
  ],
  [
    "count_when with precount",
    limited({ count_when: { status: [401] }, precount: { sync_ms: 100 } }),
    `${RL}.precount`,
    '"precount" cannot be combined with "count_when": a hit that may be refunded is taken at the counter itself',
  ],
  [
    "count_when with on_limit queue",
    limited({ count_when: { status: [401] }, on_limit: "queue" }),
    `${RL}.on_limit`,
    'on_limit "queue" cannot be combined with "count_when"; only "reject" can',
  ],
  [
    "count_when on unlimited",
    { domain: "t", descriptors: [{ key: "k", rate_limit: { unlimited: true, count_when: { status: [401] } } }] },
    `${RL}.count_when`,
    '"count_when" must not be set when "unlimited" is true',
  ],
  ["cost negative", routed({ cost: -1 }), `${R}.cost`, "must be a whole number from 0 to 4294967295, got -1"],
  ["cost fractional", routed({ cost: 1.5 }), `${R}.cost`, "must be a whole number from 0 to 4294967295, got 1.5"],
  ["cost a string", routed({ cost: "3" }), `${R}.cost`, 'expected a whole number, {"header": "…"}, {"body_bytes": true} or {"json_body": "…"}, got string'],
  [
    "cost with both sources",
    routed({ cost: { header: "x-cost", body_bytes: true } }),
    `${R}.cost`,
    'set exactly one of "header", "body_bytes" and "json_body"',
  ],
  ["cost with neither source", routed({ cost: {} }), `${R}.cost`, 'set exactly one of "header", "body_bytes" and "json_body"'],
  ["cost bad header name", routed({ cost: { header: "x cost" } }), `${R}.cost.header`, '"x cost" is not a valid header name'],
  ["cost body_bytes false", routed({ cost: { body_bytes: false } }), `${R}.cost.body_bytes`, 'must be true (omit "cost" to charge one hit per request)'],
  ["cost allow_zero not a boolean", routed({ cost: { header: "x-n", allow_zero: "yes" } }), `${R}.cost.allow_zero`, "expected a boolean, got string"],
  ["cost misspelled key", routed({ cost: { headr: "x" } }), `${R}.cost.headr`, 'unknown key "headr" (did you mean "header"?)'],
  ["cost_from_response without a source", routed({ cost_from_response: {} }), `${R}.cost_from_response`, 'set exactly one of "header", "usage" and "json"'],
  ["cost_from_response not an object", routed({ cost_from_response: "x-tokens" }), `${R}.cost_from_response`, "expected an object, got string"],
  ["cost_from_response bad header", routed({ cost_from_response: { header: "" } }), `${R}.cost_from_response.header`, "must be a non-empty string"],
];

describe("response limits: invalid rules", () => {
  it.each(INVALID)("%s", (_name, input, path, message) => {
    expect(errorsOf(input)).toContainEqual({ path, message });
  });

  // The order of a range's ends is beyond the schema's pattern.
  it.each(INVALID.filter(([name]) => name !== "count_when reversed range"))("rules.schema.json rejects %s", (_name, input) => {
    expect(validates(schema, input)).toBe(false);
  });
});

describe("response limits: valid rules", () => {
  const VALID: readonly [string, unknown][] = [
    ["count_when statuses, classes and ranges", limited({ count_when: { status: [401, 403, "5xx", "420-429"] } })],
    ["literal cost", routed({ cost: 0 })],
    ["header cost", routed({ cost: { header: "X-Cost" } })],
    ["body_bytes cost", routed({ cost: { body_bytes: true } })],
    ["header cost allowing 0", routed({ cost: { header: "x-n", allow_zero: true } })],
    ["body_bytes cost allowing 0", routed({ cost: { body_bytes: true, allow_zero: false } })],
    ["cost_from_response with a cost", routed({ cost: 1, cost_from_response: { header: "X-Tokens-Used" } })],
  ];
  it.each(VALID)("%s compiles and the schema agrees", (_name, input) => {
    const result = compileRules(input);
    expect(result.ok ? [] : result.errors).toEqual([]);
    expect(validates(schema, input)).toBe(true);
  });

  it("compiles statuses to ranges and header names to lower case", () => {
    const limit = domainOf(limited({ count_when: { status: [401, "5xx", "420-429"] } })).root.keyOnly.get("k")?.limits[0];
    expect(limit?.countWhen?.status).toEqual([
      [401, 401],
      [500, 599],
      [420, 429],
    ]);
    const [route] = domainOf(routed({ cost: { header: "X-Cost" }, cost_from_response: { header: "X-Tokens-Used" } })).routes;
    expect(route.cost).toEqual({ kind: "header", name: "x-cost" });
    expect(route.costFromResponse).toEqual({ kind: "header", name: "x-tokens-used" });
    expect(domainOf(routed({ cost: { body_bytes: true, allow_zero: true } })).routes[0].cost).toEqual({ kind: "body_bytes", allowZero: true });
  });

  it("a count_when limit keeps a counter apart from an otherwise equal one", () => {
    const plain = domainOf(limited({})).root.keyOnly.get("k")?.limits[0];
    const counted = domainOf(limited({ count_when: { status: [401] } })).root.keyOnly.get("k")?.limits[0];
    expect(counted?.id).not.toBe(plain?.id);
  });

  it("countsStatus matches exactly the listed statuses", () => {
    const when = { status: [[401, 401] as const, [500, 599] as const] };
    const matched = [100, 200, 400, 401, 402, 499, 500, 550, 599].filter((s) => countsStatus(when, s));
    expect(matched).toEqual([401, 500, 550, 599]);
  });
});
