import { describe, expect, it } from "vitest";
import rules from "../../rules.json";
import schema from "../../rules.schema.json";
import {
  ALGORITHMS,
  BOUNDS,
  BUILTIN_KEYS,
  BURST_ALGORITHMS,
  DELAY_ALGORITHMS,
  DUPLICATE_VALUES,
  IPV6_PREFIX,
  ON_LIMIT_ACTIONS,
  PATH_FORWARDS,
  PLACEMENTS,
  RULE_KEYS,
  UNITS,
  VALUE_SOURCES,
} from "../../src/rules/index.ts";
import { INVALID, VALID } from "./fixtures.ts";
import { validates } from "./mini-schema.ts";

const defs = (schema as any).$defs;
const propertiesOf = (def: any) => Object.keys(def.properties);

describe("rules.schema.json structure", () => {
  it("is a draft 2020-12 schema with a definition per object kind", () => {
    expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(Object.keys(defs).sort()).toEqual(["descriptor", "document", "match", "rateLimit", "route", "routeEntry"]);
  });

  it("lists exactly the keys the validator allows, per object kind", () => {
    expect(propertiesOf(defs.document)).toEqual(RULE_KEYS.document);
    expect(propertiesOf(defs.descriptor)).toEqual(RULE_KEYS.descriptor);
    expect(propertiesOf(defs.rateLimit)).toEqual(RULE_KEYS.rateLimit);
    expect(propertiesOf(defs.rateLimit.properties.replaces.items)).toEqual(RULE_KEYS.replaces);
    expect(propertiesOf(defs.rateLimit.properties.precount)).toEqual(RULE_KEYS.precount);
    expect(propertiesOf(defs.document.properties.paths)).toEqual(RULE_KEYS.paths);
    expect(propertiesOf(defs.route)).toEqual(RULE_KEYS.route);
    expect(propertiesOf(defs.match)).toEqual(RULE_KEYS.match);
    expect(propertiesOf(defs.routeEntry)).toEqual(RULE_KEYS.routeEntry);
    for (const name of Object.keys(defs)) {
      const def = defs[name];
      expect(def.additionalProperties, name).toBe(false);
    }
  });

  it("uses the validator's enums and bounds", () => {
    const rl = defs.rateLimit.properties;
    expect(rl.unit.enum).toEqual(UNITS);
    expect(rl.algorithm.enum).toEqual(ALGORITHMS);
    expect(rl.on_limit.enum).toEqual(ON_LIMIT_ACTIONS);
    expect(defs.rateLimit.allOf[2].then.properties.algorithm.enum).toEqual(DELAY_ALGORITHMS);
    expect(defs.document.properties.placement.enum).toEqual(PLACEMENTS);
    expect(defs.document.properties.paths.properties.forward.enum).toEqual(PATH_FORWARDS);
    expect(defs.rateLimit.allOf[1].if.properties.algorithm.enum).toEqual(BURST_ALGORITHMS);
    expect(defs.routeEntry.oneOf.at(-1).properties.key.enum).toEqual(BUILTIN_KEYS);
    expect(defs.routeEntry.oneOf.slice(0, -1).map((b: any) => b.required[0])).toEqual(VALUE_SOURCES);
    expect([rl.requests_per_unit.maximum, rl.unit_multiplier.maximum, rl.burst.maximum]).toEqual([BOUNDS.maxCount, BOUNDS.maxCount, BOUNDS.maxCount]);
    expect(rl.precount.properties.sync_ms.maximum).toBe(BOUNDS.maxSyncMs);
    expect(rl.max_delay_ms.maximum).toBe(BOUNDS.maxDelayMs);
    expect(defs.document.properties.shards).toMatchObject({ maximum: BOUNDS.maxShards, default: BOUNDS.defaultShards });
    expect(defs.document.properties.duplicate_values).toMatchObject({ enum: DUPLICATE_VALUES, default: "reject" });
    expect(defs.document.properties.ipv6_prefix).toMatchObject({ minimum: IPV6_PREFIX.min, maximum: IPV6_PREFIX.max, default: IPV6_PREFIX.default });
  });
});

describe("rules.schema.json agrees with the validator", () => {
  it("accepts the default rules.json", () => {
    expect(validates(schema, rules)).toBe(true);
  });

  it.each(VALID.map((f) => [f.name, f.input] as const))("accepts valid %s", (_name, input) => {
    expect(validates(schema, input)).toBe(true);
  });

  it.each(INVALID.filter((f) => f.schema).map((f) => [f.name, f.input] as const))("rejects %s", (_name, input) => {
    expect(validates(schema, input)).toBe(false);
  });

  it("leaves only cross-reference and arithmetic checks to the validator", () => {
    expect(INVALID.filter((f) => !f.schema).map((f) => f.name)).toEqual([
      "duplicate key/value",
      "duplicate key only",
      "duplicate wildcard",
      "duplicate nested",
      "replaces itself",
      "replaces nothing",
      "sliding log limit too large",
      "count too large for exact arithmetic",
      "burst too large for exact arithmetic",
      "window too long",
      "identical limits in rate_limits",
      "nesting too deep",
      "duplicate domain",
    ]);
    for (const fixture of INVALID.filter((f) => !f.schema)) expect(validates(schema, fixture.input), fixture.name).toBe(true);
  });
});
