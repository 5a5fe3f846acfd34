/**
 * The Envoy → floodgate conversion (src/rules/envoy-import/envoy-yaml.ts) on parsed YAML
 * values, in plain Node (so mutation testing sees it, docs/testing.md): each
 * loose spot made explicit, each dropped option's warning and each non-string
 * key's error with its exact JSON path. The command-line tests
 * (test/cli/rules-import.test.mjs) run the same conversion from YAML files.
 */
import { describe, expect, it } from "vitest";
import { fromEnvoy } from "../../src/rules/envoy-import/envoy-yaml.ts";

const MISSING_RPU = "missing: Envoy reads it as 0, so every request is over this limit";

describe("fromEnvoy", () => {
  it("copies a config, lower-cases units and pins fixed_window, with no notes", () => {
    const yaml = {
      domain: "mongo_cps",
      descriptors: [{ key: "database", value: "users", rate_limit: { unit: "SECOND", requests_per_unit: 500 } }],
    };
    expect(fromEnvoy(yaml)).toEqual({
      document: {
        domain: "mongo_cps",
        descriptors: [{ key: "database", value: "users", rate_limit: { unit: "second", requests_per_unit: 500, algorithm: "fixed_window" } }],
      },
      errors: [],
      warnings: [],
    });
    // The input is not changed in place.
    expect(yaml.descriptors[0].rate_limit.unit).toBe("SECOND");
  });

  it("keeps an algorithm that is named, and a unit that is not a string as it is", () => {
    const { document } = fromEnvoy({ domain: "d", descriptors: [{ key: "k", rate_limit: { unit: 7, requests_per_unit: 1, algorithm: "gcra" } }] });
    expect(document).toEqual({ domain: "d", descriptors: [{ key: "k", rate_limit: { unit: 7, requests_per_unit: 1, algorithm: "gcra" } }] });
  });

  it("turns scalar domains, keys, values and names into strings", () => {
    const { document, errors, warnings } = fromEnvoy({
      domain: 42,
      descriptors: [
        {
          key: 1,
          value: true,
          rate_limit: { name: 5, unit: "minute", requests_per_unit: 1, replaces: [{ name: 7 }, { name: null }, { name: "x" }, "raw"] },
        },
        { key: false, value: 10n },
      ],
    });
    expect(document).toEqual({
      domain: "42",
      descriptors: [
        {
          key: "1",
          value: "true",
          rate_limit: {
            name: "5",
            unit: "minute",
            requests_per_unit: 1,
            algorithm: "fixed_window",
            replaces: [{ name: "7" }, { name: "" }, { name: "x" }, "raw"],
          },
        },
        { key: "false", value: "10" },
      ],
    });
    expect([errors, warnings]).toEqual([[], []]);
  });

  it("reads empty YAML entries (null) as Envoy does", () => {
    const { document, warnings } = fromEnvoy({
      domain: null,
      descriptors: [
        {
          key: null,
          value: null,
          rate_limit: null,
          descriptors: null,
          shadow_mode: null,
          detailed_metric: null,
          quota_mode: null,
          share_threshold: null,
        },
        { key: "k", value: "", rate_limit: { name: null, unit: "hour", requests_per_unit: null, replaces: null, unlimited: null } },
      ],
    });
    expect(document).toEqual({
      descriptors: [{ key: "" }, { key: "k", rate_limit: { unit: "hour", requests_per_unit: 0, algorithm: "fixed_window" } }],
    });
    expect(warnings).toEqual([{ path: "$.descriptors[1].rate_limit.requests_per_unit", message: MISSING_RPU }]);
    expect(fromEnvoy({ domain: "d", descriptors: null }).document).toEqual({ domain: "d" });
  });

  it("drops false options that are Envoy's default and keeps true ones and other values", () => {
    const { document } = fromEnvoy({
      domain: "d",
      descriptors: [
        { key: "a", quota_mode: false, share_threshold: false, shadow_mode: false, detailed_metric: false },
        { key: "b", quota_mode: true, share_threshold: true, rate_limit: { name: "", unit: "day", requests_per_unit: 3, unlimited: false } },
      ],
    });
    expect(document).toEqual({
      domain: "d",
      descriptors: [
        { key: "a", shadow_mode: false, detailed_metric: false },
        { key: "b", quota_mode: true, share_threshold: true, rate_limit: { unit: "day", requests_per_unit: 3, algorithm: "fixed_window" } },
      ],
    });
  });

  it("drops value_to_metric and metadata with a warning at their paths, in nested descriptors too", () => {
    const { document, warnings } = fromEnvoy({
      domain: "d",
      descriptors: [
        { key: "a", value_to_metric: true, metadata: { x: 1 }, descriptors: [{ key: "b", value_to_metric: true, descriptors: [{ key: "c", metadata: {} }] }] },
      ],
    });
    expect(document).toEqual({ domain: "d", descriptors: [{ key: "a", descriptors: [{ key: "b", descriptors: [{ key: "c" }] }] }] });
    expect(warnings).toEqual([
      {
        path: "$.descriptors[0].value_to_metric",
        message: "dropped: it only adds request values to Envoy's metric names (use detailed_metric for that in floodgate)",
      },
      { path: "$.descriptors[0].metadata", message: "dropped: floodgate does not return dynamic metadata" },
      {
        path: "$.descriptors[0].descriptors[0].value_to_metric",
        message: "dropped: it only adds request values to Envoy's metric names (use detailed_metric for that in floodgate)",
      },
      { path: "$.descriptors[0].descriptors[0].descriptors[0].metadata", message: "dropped: floodgate does not return dynamic metadata" },
    ]);
  });

  it("gives a missing requests_per_unit Envoy's 0 with a warning, at nested paths", () => {
    const { document, warnings } = fromEnvoy({
      domain: "d",
      descriptors: [{ key: "a" }, { key: "b", descriptors: [{ key: "c", rate_limit: { unit: "second" } }] }],
    });
    expect(document).toEqual({
      domain: "d",
      descriptors: [{ key: "a" }, { key: "b", descriptors: [{ key: "c", rate_limit: { unit: "second", requests_per_unit: 0, algorithm: "fixed_window" } }] }],
    });
    expect(warnings).toEqual([{ path: "$.descriptors[1].descriptors[0].rate_limit.requests_per_unit", message: MISSING_RPU }]);
  });

  it("leaves an unlimited rate limit without algorithm or count, dropping a count Envoy ignores", () => {
    const { document, warnings } = fromEnvoy({
      domain: "d",
      descriptors: [
        { key: "a", rate_limit: { unlimited: true, requests_per_unit: 9 } },
        { key: "b", rate_limit: { unlimited: true, unit: "second", requests_per_unit: 9 } },
        { key: "c", rate_limit: { unlimited: true } },
      ],
    });
    expect(document).toEqual({
      domain: "d",
      descriptors: [
        { key: "a", rate_limit: { unlimited: true } },
        { key: "b", rate_limit: { unlimited: true, unit: "second", requests_per_unit: 9 } },
        { key: "c", rate_limit: { unlimited: true } },
      ],
    });
    expect(warnings).toEqual([
      { path: "$.descriptors[0].rate_limit.requests_per_unit", message: "dropped: Envoy ignores requests_per_unit on an unlimited rate limit" },
    ]);
  });

  it("passes what is not a map through for the compiler to reject", () => {
    expect(fromEnvoy("text")).toEqual({ document: "text", errors: [], warnings: [] });
    expect(fromEnvoy(null)).toEqual({ document: null, errors: [], warnings: [] });
    expect(fromEnvoy([{ a: 1 }]).document).toEqual([{ a: 1 }]);
    expect(fromEnvoy({ domain: "d", descriptors: ["x", null, [1]] }).document).toEqual({ domain: "d", descriptors: ["x", null, [1]] });
    expect(fromEnvoy({ domain: "d", descriptors: { key: "k" } }).document).toEqual({ domain: "d", descriptors: { key: "k" } });
    expect(fromEnvoy({ domain: "d", descriptors: [{ key: "k", rate_limit: "fast", descriptors: "none" }] }).document).toEqual({
      domain: "d",
      descriptors: [{ key: "k", rate_limit: "fast", descriptors: "none" }],
    });
    expect(fromEnvoy({ domain: "d", descriptors: [{ key: "k", rate_limit: { unit: "second", requests_per_unit: 1, replaces: "r" } }] }).document).toEqual({
      domain: "d",
      descriptors: [{ key: "k", rate_limit: { unit: "second", requests_per_unit: 1, replaces: "r", algorithm: "fixed_window" } }],
    });
    // A non-scalar domain, key or name stays as it is.
    expect(fromEnvoy({ domain: ["d"], descriptors: [{ key: { k: 1 }, value: [1], rate_limit: { name: {}, replaces: [{ name: [] }] } }] }).document).toEqual({
      domain: ["d"],
      descriptors: [{ key: { k: 1 }, value: [1], rate_limit: { name: {}, replaces: [{ name: [] }], requests_per_unit: 0, algorithm: "fixed_window" } }],
    });
  });

  it("reads YAML maps (Map) into objects, and reports each key that is not a string at its map's path", () => {
    const yaml = new Map<unknown, unknown>([
      ["domain", "d"],
      [
        "descriptors",
        [
          new Map<unknown, unknown>([
            ["key", "k"],
            [1, "one"],
            [null, "none"],
            [
              "rate_limit",
              new Map<unknown, unknown>([
                ["unit", "Second"],
                ["requests_per_unit", 2],
                [true, 1],
              ]),
            ],
          ]),
        ],
      ],
      ["a b", new Map<unknown, unknown>([[2.5, 1]])],
    ]);
    const { document, errors } = fromEnvoy(yaml);
    expect(document).toEqual({
      domain: "d",
      descriptors: [{ key: "k", rate_limit: { unit: "second", requests_per_unit: 2, algorithm: "fixed_window" } }],
      "a b": {},
    });
    expect(errors).toEqual([
      { path: "$.descriptors[0]", message: 'key "1" is not a string (a number); quote it' },
      { path: "$.descriptors[0]", message: 'key "null" is not a string (a null); quote it' },
      { path: "$.descriptors[0].rate_limit", message: 'key "true" is not a string (a boolean); quote it' },
      { path: '$["a b"]', message: 'key "2.5" is not a string (a number); quote it' },
    ]);
    // A Map at the top that is a list's element is read too.
    expect(fromEnvoy([new Map([["a", 1]])]).document).toEqual([{ a: 1 }]);
  });
});
