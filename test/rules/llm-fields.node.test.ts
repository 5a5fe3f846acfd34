/**
 * The token-budget fields of a route (docs/llm.md): `json_body` entries, a
 * `json_body` cost, `cost_from_response` `usage`/`json`/`tokens`. Each
 * mistake reported at its JSON path, rules.schema.json agreeing.
 */
import { describe, expect, it } from "vitest";
import schema from "../../rules.schema.json";
import { compileRules } from "../../src/rules/index.ts";
import { domainOf, errorsOf } from "./helpers.ts";
import { validates } from "./mini-schema.ts";

const R = "$.routes[0]";
const E = "$.routes[0].descriptors[0][0]";
const routed = (extra: Record<string, unknown>, entry: Record<string, unknown> = { key: "k", value: "v" }) => ({
  domain: "t",
  descriptors: [{ key: "k", rate_limit: { unit: "minute", requests_per_unit: 5 } }],
  routes: [{ match: {}, descriptors: [[entry]], ...extra }],
});
const entry = (e: Record<string, unknown>) => routed({}, e);
const seventeen = Array.from({ length: 17 }, (_, i) => `s${i}`).join(".");

// [name, rules, path, message, whether the schema sees it too]
const INVALID: readonly [string, unknown, string, string, boolean][] = [
  ["json_body empty", entry({ key: "model", json_body: "" }), `${E}.json_body`, "must be a non-empty string", true],
  ["json_body not a string", entry({ key: "model", json_body: 5 }), `${E}.json_body`, "expected a string, got number", true],
  [
    "json_body with an empty segment",
    entry({ key: "model", json_body: "metadata..user" }),
    `${E}.json_body`,
    '"metadata..user" is not a dotted path: member names separated by single dots, e.g. "usage.total_tokens"',
    true,
  ],
  [
    "json_body with a leading dot",
    entry({ key: "model", json_body: ".model" }),
    `${E}.json_body`,
    '".model" is not a dotted path: member names separated by single dots, e.g. "usage.total_tokens"',
    true,
  ],
  ["json_body too deep", entry({ key: "model", json_body: seventeen }), `${E}.json_body`, "must have at most 16 segments, got 17", false],
  [
    "json_body beside header",
    entry({ key: "model", json_body: "model", header: "x-model" }),
    E,
    'entry has 2 value sources ("header", "json_body"); set exactly one',
    true,
  ],
  ["json_body misspelled", entry({ key: "model", json_bdy: "model" }), `${E}.json_bdy`, 'unknown key "json_bdy" (did you mean "json_body"?)', true],
  [
    "json_body cost without default",
    routed({ cost: { json_body: "max_tokens" } }),
    `${R}.cost`,
    'missing required key "default" (the cost of a request whose body does not give one)',
    true,
  ],
  ["json_body cost default negative", routed({ cost: { json_body: "max_tokens", default: -1 } }), `${R}.cost.default`, "must be at least 0, got -1", true],
  ["json_body cost default fractional", routed({ cost: { json_body: "max_tokens", default: 1.5 } }), `${R}.cost.default`, "expected an integer, got 1.5", true],
  [
    "json_body cost max a string",
    routed({ cost: { json_body: "max_tokens", default: 1, max: "lots" } }),
    `${R}.cost.max`,
    "expected an integer, got string",
    true,
  ],
  [
    "json_body cost max too large",
    routed({ cost: { json_body: "max_tokens", default: 1, max: 4294967296 } }),
    `${R}.cost.max`,
    "must be at most 4294967295, got 4294967296",
    true,
  ],
  [
    "json_body cost default over max",
    routed({ cost: { json_body: "max_tokens", default: 5000, max: 4096 } }),
    `${R}.cost.default`,
    'must be at most "max" (4096), got 5000',
    false,
  ],
  [
    "json_body cost bad path",
    routed({ cost: { json_body: "a.", default: 1 } }),
    `${R}.cost.json_body`,
    '"a." is not a dotted path: member names separated by single dots, e.g. "usage.total_tokens"',
    true,
  ],
  ["default beside header", routed({ cost: { header: "x-cost", default: 1 } }), `${R}.cost.default`, 'only applies to a "json_body" cost', true],
  ["max beside body_bytes", routed({ cost: { body_bytes: true, max: 1 } }), `${R}.cost.max`, 'only applies to a "json_body" cost', true],
  [
    "json_body beside header cost",
    routed({ cost: { header: "x", json_body: "n", default: 1 } }),
    `${R}.cost`,
    'set exactly one of "header", "body_bytes" and "json_body"',
    true,
  ],
  [
    "usage unknown",
    routed({ cost_from_response: { usage: "openal" } }),
    `${R}.cost_from_response.usage`,
    'unknown usage report "openal" (did you mean "openai"?)',
    true,
  ],
  ["usage not a string", routed({ cost_from_response: { usage: true } }), `${R}.cost_from_response.usage`, "expected a string, got boolean", true],
  [
    "tokens unknown",
    routed({ cost_from_response: { usage: "openai", tokens: "prompt" } }),
    `${R}.cost_from_response.tokens`,
    'unknown tokens "prompt" (expected one of: total, input, output)',
    true,
  ],
  [
    "tokens beside json",
    routed({ cost_from_response: { json: "usage.n", tokens: "input" } }),
    `${R}.cost_from_response.tokens`,
    'only applies beside "usage" (a "json" path names its number itself)',
    true,
  ],
  [
    "tokens beside header",
    routed({ cost_from_response: { header: "x-n", tokens: "input" } }),
    `${R}.cost_from_response.tokens`,
    'only applies beside "usage" (a "json" path names its number itself)',
    true,
  ],
  ["tokens alone", routed({ cost_from_response: { tokens: "input" } }), `${R}.cost_from_response`, 'set exactly one of "header", "usage" and "json"', true],
  [
    "usage beside header",
    routed({ cost_from_response: { usage: "openai", header: "x-n" } }),
    `${R}.cost_from_response`,
    'set exactly one of "header", "usage" and "json"',
    true,
  ],
  ["json empty", routed({ cost_from_response: { json: "" } }), `${R}.cost_from_response.json`, "must be a non-empty string", true],
  [
    "json trailing dot",
    routed({ cost_from_response: { json: "usage." } }),
    `${R}.cost_from_response.json`,
    '"usage." is not a dotted path: member names separated by single dots, e.g. "usage.total_tokens"',
    true,
  ],
  [
    "cost_from_response misspelled",
    routed({ cost_from_response: { usgae: "openai" } }),
    `${R}.cost_from_response.usgae`,
    'unknown key "usgae" (did you mean "usage"?)',
    true,
  ],
];

describe("token-budget fields: invalid rules", () => {
  it.each(INVALID)("%s", (_name, input, path, message) => {
    expect(errorsOf(input)).toContainEqual({ path, message });
  });

  it.each(INVALID.filter((row) => row[4]))("rules.schema.json rejects %s", (_name, input) => {
    expect(validates(schema, input)).toBe(false);
  });
});

describe("token-budget fields: valid rules", () => {
  const VALID: readonly [string, unknown][] = [
    ["a json_body entry", entry({ key: "model", json_body: "model" })],
    ["a nested json_body entry", entry({ key: "user", json_body: "metadata.user_id" })],
    ["a json_body cost", routed({ cost: { json_body: "max_tokens", default: 1024, max: 200000 } })],
    ["a json_body cost without max, allowing 0", routed({ cost: { json_body: "max_tokens", default: 0, allow_zero: true } })],
    ["OpenAI usage", routed({ cost_from_response: { usage: "openai" } })],
    ["Anthropic output tokens", routed({ cost_from_response: { usage: "anthropic", tokens: "output" } })],
    ["a json path", routed({ cost_from_response: { json: "usage.total_tokens" } })],
    ["a header still", routed({ cost_from_response: { header: "x-tokens-used" } })],
  ];
  it.each(VALID)("%s compiles and the schema agrees", (_name, input) => {
    const result = compileRules(input);
    expect(result.ok ? [] : result.errors).toEqual([]);
    expect(validates(schema, input)).toBe(true);
  });

  it("compiles paths into segments, and marks what a route reads of the body", () => {
    const domain = domainOf({
      domain: "t",
      descriptors: [{ key: "k", rate_limit: { unit: "minute", requests_per_unit: 5 } }],
      routes: [
        {
          match: { path: "/v1/*" },
          descriptors: [
            [
              { key: "k", header: "x-key" },
              { key: "model", json_body: "model" },
            ],
          ],
          cost: { json_body: "max_tokens", default: 1024, max: 200000 },
          cost_from_response: { usage: "anthropic" },
        },
        { match: {}, descriptors: [[{ key: "k", header: "x-key" }]] },
      ],
    });
    expect(domain.readsJsonBody).toBe(true);
    const [reading, plain] = domain.routes;
    expect(reading.descriptors[0][1].source).toEqual({ kind: "json_body", path: ["model"] });
    expect(reading.cost).toEqual({ kind: "json_body", path: ["max_tokens"], fallback: 1024, max: 200000 });
    expect(reading.costFromResponse).toEqual({ kind: "usage", preset: "anthropic", tokens: "total" });
    expect(reading.jsonPaths).toEqual([["model"], ["max_tokens"]]);
    expect(plain.jsonPaths).toBeUndefined();
    expect(domainOf(routed({ cost_from_response: { json: "a.b" } })).readsJsonBody).toBeUndefined();
    expect(domainOf(routed({ cost_from_response: { json: "a.b" } })).routes[0].costFromResponse).toEqual({ kind: "json", path: ["a", "b"] });
  });
});
