/**
 * `enforce_percent`, `soft_percent` and `candidate` on a rate limit
 * (docs/rules.md, "Gradual and soft enforcement"): each mistake reported
 * with its exact message at its JSON path, rules.schema.json agreeing with
 * the compiler, and what the compiled limit carries.
 */
import { describe, expect, it } from "vitest";
import schema from "../../rules.schema.json";
import { CANDIDATE_KEYS, ENFORCEMENT_KEYS, MAX_SOFT_PERCENT, softCeiling } from "../../src/rules/enforcement.ts";
import { domainOf, errorsOf } from "./helpers.ts";
import { validates } from "./mini-schema.ts";

const RL = "$.descriptors[0].rate_limit";
const limited = (extra: Record<string, unknown>) => ({
  domain: "t",
  descriptors: [{ key: "k", rate_limit: { unit: "minute", requests_per_unit: 10, ...extra } }],
});
const limitOf = (extra: Record<string, unknown>) => domainOf(limited(extra)).root.keyOnly.get("k")?.limits[0];

// [name, rules, path, message, the schema rejects it too]
const INVALID: readonly [string, unknown, string, string, boolean][] = [
  ["enforce_percent above 100", limited({ enforce_percent: 101 }), `${RL}.enforce_percent`, "must be at most 100, got 101", true],
  ["enforce_percent below 0", limited({ enforce_percent: -1 }), `${RL}.enforce_percent`, "must be at least 0, got -1", true],
  ["enforce_percent a fraction", limited({ enforce_percent: 12.5 }), `${RL}.enforce_percent`, "expected an integer, got 12.5", true],
  ["enforce_percent a string", limited({ enforce_percent: "50" }), `${RL}.enforce_percent`, "expected an integer, got string", true],
  ["soft_percent above the bound", limited({ soft_percent: 1001 }), `${RL}.soft_percent`, "must be at most 1000, got 1001", true],
  ["soft_percent negative", limited({ soft_percent: -5 }), `${RL}.soft_percent`, "must be at least 0, got -5", true],
  [
    "soft_percent with unlimited",
    { domain: "t", descriptors: [{ key: "k", rate_limit: { unlimited: true, soft_percent: 10 } }] },
    `${RL}.soft_percent`,
    '"soft_percent" must not be set when "unlimited" is true',
    true,
  ],
  [
    "enforce_percent on a concurrency limit",
    { domain: "t", descriptors: [{ key: "k", rate_limit: { concurrency: 2, enforce_percent: 50 } }] },
    `${RL}.enforce_percent`,
    '"enforce_percent" does not apply to a concurrency limit',
    true,
  ],
  [
    "soft_percent with on_limit queue",
    limited({ on_limit: "queue", soft_percent: 10 }),
    `${RL}.soft_percent`,
    '"soft_percent" cannot be combined with on_limit "queue"; only "reject" can',
    true,
  ],
  [
    "enforce_percent with on_limit delay",
    limited({ on_limit: "delay", max_delay_ms: 100, algorithm: "gcra", enforce_percent: 10 }),
    `${RL}.enforce_percent`,
    '"enforce_percent" cannot be combined with on_limit "delay"; only "reject" can',
    true,
  ],
  [
    "candidate with count_when",
    limited({ count_when: { status: [401] }, candidate: { unit: "minute", requests_per_unit: 5 } }),
    `${RL}.candidate`,
    '"candidate" cannot be combined with "count_when": a candidate counts every request its live limit sees',
    true,
  ],
  ["candidate not an object", limited({ candidate: 5 }), `${RL}.candidate`, "expected an object, got number", true],
  [
    "candidate with precount",
    limited({ candidate: { unit: "minute", requests_per_unit: 5, precount: { sync_ms: 100 } } }),
    `${RL}.candidate.precount`,
    '"precount" is not allowed in a candidate (it takes only name, unit, requests_per_unit, unit_multiplier, algorithm, burst; it counts where its live limit does and never acts)',
    true,
  ],
  [
    "candidate inside a candidate",
    limited({ candidate: { unit: "minute", requests_per_unit: 5, candidate: { unit: "minute", requests_per_unit: 1 } } }),
    `${RL}.candidate.candidate`,
    '"candidate" is not allowed in a candidate (it takes only name, unit, requests_per_unit, unit_multiplier, algorithm, burst; it counts where its live limit does and never acts)',
    true,
  ],
  ["candidate without its unit", limited({ candidate: { requests_per_unit: 5 } }), `${RL}.candidate`, 'missing required key "unit"', true],
  [
    "candidate with a bad unit",
    limited({ candidate: { unit: "minuet", requests_per_unit: 5 } }),
    `${RL}.candidate.unit`,
    'unknown unit "minuet" (did you mean "minute"?)',
    true,
  ],
  // Beyond JSON Schema: the algorithms' exact arithmetic.
  [
    "soft ceiling past the sliding log's bound",
    limited({ algorithm: "sliding_window_log", requests_per_unit: 8000, soft_percent: 50 }),
    `${RL}.soft_percent`,
    "the soft ceiling (12000) is too large for this limit's algorithm; lower soft_percent",
    false,
  ],
];

describe("enforcement fields: errors", () => {
  it.each(INVALID)("%s", (_name, rules, path, message) => {
    expect(errorsOf(rules)).toContainEqual({ path, message });
  });

  it.each(INVALID.map(([name, rules, , , bySchema]) => [name, rules, bySchema] as const))("rules.schema.json agrees: %s", (_name, rules, bySchema) => {
    expect(validates(schema, rules)).toBe(!bySchema);
  });

  it("schema lists the fields with the validator's bounds and the candidate's keys", () => {
    const props = (schema as any).$defs.rateLimit.properties;
    for (const key of ENFORCEMENT_KEYS) expect(props[key], key).toBeDefined();
    expect(props.enforce_percent).toMatchObject({ minimum: 0, maximum: 100, default: 100 });
    expect(props.soft_percent).toMatchObject({ minimum: 0, maximum: MAX_SOFT_PERCENT });
    expect(Object.keys(props.candidate.properties)).toEqual(CANDIDATE_KEYS);
  });
});

describe("enforcement fields: compiled", () => {
  it("leaves a limit without them (and with 100 and 0, their defaults) exactly as before", () => {
    const plain = limitOf({});
    expect(limitOf({ enforce_percent: 100, soft_percent: 0 })).toEqual(plain);
    expect(plain?.enforcePercent).toBeUndefined();
    expect(plain?.soft).toBeUndefined();
  });

  it("keeps an enforce_percent below 100", () => {
    expect(limitOf({ enforce_percent: 0 })?.enforcePercent).toBe(0);
    expect(limitOf({ enforce_percent: 99 })?.enforcePercent).toBe(99);
  });

  it("counts a soft limit against its ceiling ⌊limit × (1 + N/100)⌋, in a counter of the ceiling's id", () => {
    const limit = limitOf({ soft_percent: 25, algorithm: "fixed_window" });
    expect(limit).toMatchObject({ limit: 12, burst: 12, id: "fw:12:60000:12", soft: { percent: 25, limit: 10, burst: 10 } });
    expect(softCeiling({ limit: 7, burst: 7 }, 30)).toEqual({ limit: 9, burst: 9 });
    expect(softCeiling({ limit: 3, burst: 20 }, 50)).toEqual({ limit: 4, burst: 30 });
    // Too small a share to add a whole request: nothing changes.
    expect(limitOf({ soft_percent: 5 })?.soft).toBeUndefined();
  });

  it("compiles a candidate in a counter of its own, named after its live limit, counted as the live one is", () => {
    const limit = limitOf({ name: "live", precount: { sync_ms: 100 }, scope: "region", candidate: { unit: "minute", requests_per_unit: 10 } });
    expect(limit?.candidate).toMatchObject({
      name: "live/candidate",
      named: false,
      candidateOf: "live",
      id: "swc:10:60000:10:cand",
      precount: { syncMs: 100 },
      scope: "region",
    });
    expect(limitOf({ candidate: { name: "trial", unit: "hour", requests_per_unit: 3 } })?.candidate?.name).toBe("trial");
  });
});
