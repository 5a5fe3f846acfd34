import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileGlob, isGlob } from "../../src/rules/index.ts";

// Reference semantics: * is `.*` (dotAll), everything else literal.
const reference = (pattern: string) =>
  new RegExp(
    `^${pattern
      .split("*")
      .map((p) => p.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&"))
      .join(".*")}$`,
    "s",
  );

describe("compileGlob", () => {
  it.each([
    ["abc", "abc", true],
    ["abc", "abcd", false],
    ["", "", true],
    ["", "a", false],
    ["*", "", true],
    ["**", "x", true],
    ["a*", "a", true],
    ["*a", "ba", true],
    ["a*a", "a", false],
    ["a*a", "aa", true],
    ["a*b*c", "abc", true],
    ["a*b*c", "acb", false],
    ["a*bc*bc", "abcbc", true],
    ["a*bc*bc", "abc", false],
    ["*.json", "x\n.json", true],
    ["a?b", "axb", false],
    ["a?b", "a?b", true],
    ["[a]", "a", false],
    ["[a]", "[a]", true],
  ])("%j matches %j: %s", (pattern, input, expected) => {
    expect(compileGlob(pattern)(input)).toBe(expected);
  });

  it("agrees with a regex reference on random patterns and inputs", () => {
    const chars = fc.constantFrom("a", "b", "*", ".", "/");
    fc.assert(
      fc.property(
        fc.string({ unit: chars, maxLength: 8 }),
        fc.string({ unit: fc.constantFrom("a", "b", ".", "/"), maxLength: 10 }),
        (pattern, input) => compileGlob(pattern)(input) === reference(pattern).test(input),
      ),
      { numRuns: 3000 },
    );
  });

  it("ignores case only when asked", () => {
    expect(compileGlob("*.EXAMPLE.com")("a.example.COM")).toBe(false);
    expect(compileGlob("*.EXAMPLE.com", true)("a.example.COM")).toBe(true);
  });

  it("tells globs from literals", () => {
    expect(isGlob("partner-*")).toBe(true);
    expect(isGlob("/login")).toBe(false);
  });
});
