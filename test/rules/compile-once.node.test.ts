/**
 * Rules fixed at build time (`compileOnce`, src/rules/compile.ts): compiled
 * on first use and kept, and invalid ones refused with every problem named,
 * `<path>: <message>` a line, after the source's name.
 */
import { describe, expect, it } from "vitest";
import { compileOnce } from "../../src/rules/compile.ts";

describe("compileOnce", () => {
  it("compiles on first use and returns the same rules after", () => {
    const rules = compileOnce({ domain: "once", descriptors: [{ key: "k", rate_limit: { unit: "second", requests_per_unit: 1 } }] }, "bench.json");
    const first = rules();
    expect([...first.domains.keys()]).toEqual(["once"]);
    expect(rules()).toBe(first);
  });

  it("names the source and every problem, one a line, each time it is asked", () => {
    const rules = compileOnce({ domain: "", descriptors: [{ key: "k", rate_limit: { unit: "fortnight", requests_per_unit: 1 } }] }, "rules.json");
    const message = [
      "rules.json is invalid:",
      "$.domain: must be a non-empty string",
      '$.descriptors[0].rate_limit.unit: unknown unit "fortnight" (expected one of: second, minute, hour, day, week, month, year)',
    ].join("\n");
    expect(rules).toThrow(new Error(message));
    expect(rules).toThrow(new Error(message));
  });
});
