/**
 * `scope` on a rate limit (docs/placement.md): each mistake reported at its
 * JSON path, rules.schema.json agreeing with the compiler, and the compiled
 * limit carrying the scope (absent for the global default). Break tried:
 * checkScopeMix not called (both mixed-scope cases compiled).
 */
import { describe, expect, it } from "vitest";
import schema from "../../rules.schema.json";
import { compileRules } from "../../src/rules/index.ts";
import { SCOPES } from "../../src/rules/keys.ts";
import { domainOf, errorsOf } from "./helpers.ts";
import { validates } from "./mini-schema.ts";

const RL = "$.descriptors[0].rate_limit";
const limited = (extra: Record<string, unknown>) => ({
  domain: "t",
  descriptors: [{ key: "k", rate_limit: { unit: "minute", requests_per_unit: 5, ...extra } }],
});
const windows = (...scopes: (string | undefined)[]) => ({
  domain: "t",
  descriptors: [
    {
      key: "k",
      rate_limits: scopes.map((scope, i) => ({ unit: "minute", requests_per_unit: 5 + i, ...(scope === undefined ? {} : { scope }) })),
    },
  ],
});

const INVALID: readonly [string, unknown, string, string, boolean][] = [
  ["misspelled scope", limited({ scope: "regional" }), `${RL}.scope`, 'unknown scope "regional" (did you mean "region"?)', true],
  ["scope not a string", limited({ scope: 1 }), `${RL}.scope`, "expected a string, got number", true],
  [
    "scope with unlimited",
    { domain: "t", descriptors: [{ key: "k", rate_limit: { unlimited: true, scope: "region" } }] },
    `${RL}.scope`,
    '"scope" must not be set when "unlimited" is true',
    true,
  ],
  // Beyond JSON Schema: a relation between the entries of one array.
  [
    "windows of one descriptor in two scopes",
    windows(undefined, undefined, "region"),
    "$.descriptors[0].rate_limits[2].scope",
    'every rate limit of one descriptor must have the same "scope" ("global" before, "region" here): they share one counter; put the other scope\'s windows on a descriptor of their own',
    false,
  ],
  [
    "an explicit global beside a region",
    windows("region", "global"),
    "$.descriptors[0].rate_limits[1].scope",
    'every rate limit of one descriptor must have the same "scope" ("region" before, "global" here): they share one counter; put the other scope\'s windows on a descriptor of their own',
    false,
  ],
];

describe("scope: invalid rules", () => {
  it.each(INVALID)("%s", (_name, input, path, message) => {
    expect(errorsOf(input)).toContainEqual({ path, message });
  });

  it.each(INVALID.filter((row) => row[4]))("rules.schema.json rejects %s", (_name, input) => {
    expect(validates(schema, input)).toBe(false);
  });
});

describe("scope: valid rules", () => {
  const VALID: readonly [string, unknown][] = [
    ["region", limited({ scope: "region" })],
    ["explicit global", limited({ scope: "global" })],
    ["region on a concurrency limit", { domain: "t", descriptors: [{ key: "k", rate_limit: { concurrency: 3, scope: "region" } }] }],
    ["region with precount", limited({ scope: "region", precount: { sync_ms: 100 } })],
    ["every window in region", windows("region", "region")],
  ];
  it.each(VALID)("%s compiles and the schema agrees", (_name, input) => {
    const result = compileRules(input);
    expect(result.ok ? [] : result.errors).toEqual([]);
    expect(validates(schema, input)).toBe(true);
  });

  it("records region on the compiled limit and leaves global limits as they were", () => {
    expect(domainOf(limited({ scope: "region" })).root.keyOnly.get("k")?.limits[0].scope).toBe("region");
    const global = domainOf(limited({ scope: "global" })).root.keyOnly.get("k")?.limits[0];
    expect(global).toEqual(domainOf(limited({})).root.keyOnly.get("k")?.limits[0]);
    expect(global?.scope).toBeUndefined();
  });

  it("offers the schema's values", () => {
    expect((schema as any).$defs.rateLimit.properties.scope.enum).toEqual(SCOPES);
  });
});
