import { describe, expect, it } from "vitest";
import { compileRules, matchDescriptor } from "../../src/rules/index.ts";

describe("large rules files", () => {
  it("compiles 10,000 descriptors and still looks them up", () => {
    const descriptors = Array.from({ length: 10_000 }, (_, i) => ({
      key: "user",
      value: `u${i}`,
      rate_limit: { unit: "minute", requests_per_unit: (i % 100) + 1 },
    }));
    const result = compileRules({ domain: "big", descriptors });
    if (!result.ok) throw new Error(JSON.stringify(result.errors.slice(0, 3)));
    expect(result.summary).toBe("rules.json: 1 domain, 10000 descriptors, 10000 limits, 0 routes");
    const domain = result.rules.domains.get("big")!;
    expect(matchDescriptor(domain, [{ key: "user", value: "u9999" }])?.limits[0].limit).toBe(100);
    expect(matchDescriptor(domain, [{ key: "user", value: "u10000" }])).toBeUndefined();
  });

  it("reports a duplicate among 10,000 descriptors", () => {
    const descriptors = Array.from({ length: 10_000 }, (_, i) => ({ key: "user", value: `u${i % 9_999}` }));
    const result = compileRules({ domain: "big", descriptors });
    expect(result.ok ? [] : result.errors).toEqual([
      { path: "$.descriptors[9999]", message: 'duplicate descriptor: key "user" with value "u0" is already defined at $.descriptors[0]' },
    ]);
  });
});
