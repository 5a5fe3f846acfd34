import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { findJsonSyntaxError, lineColumn } from "../../src/rules/json-syntax.ts";
import { parses } from "../support/json-oracle.ts";

describe("findJsonSyntaxError", () => {
  it("finds nothing wrong in any JSON.stringify output", () => {
    fc.assert(
      fc.property(fc.json(), (text) => findJsonSyntaxError(text) === undefined),
      { numRuns: 1000 },
    );
  });

  it("agrees with JSON.parse on near-JSON noise", () => {
    const token = fc.constantFrom("{", "}", "[", "]", ",", ":", '"a"', '"', "1", "-", "0", ".5", "e3", "true", "nul", " ", "\n", "\\", "x");
    fc.assert(
      fc.property(fc.array(token, { maxLength: 12 }), (tokens) => {
        const text = tokens.join("");
        return (findJsonSyntaxError(text) === undefined) === parses(text);
      }),
      { numRuns: 5000 },
    );
  });

  it("handles nesting far deeper than any call stack", () => {
    expect(findJsonSyntaxError("[".repeat(200_000) + "]".repeat(200_000))).toBeUndefined();
    expect(findJsonSyntaxError("[".repeat(200_000))).toEqual({ offset: 200_000, reason: "expected a value, found end of input" });
  });
});

describe("lineColumn", () => {
  it("counts lines and columns from 1", () => {
    expect(lineColumn("ab\ncd", 0)).toEqual({ line: 1, column: 1 });
    expect(lineColumn("ab\ncd", 4)).toEqual({ line: 2, column: 2 });
    expect(lineColumn("ab\n", 3)).toEqual({ line: 2, column: 1 });
  });
});
