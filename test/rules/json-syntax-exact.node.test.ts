/**
 * Where and why a rules text is not JSON (src/rules/json-syntax.ts), to the
 * exact offset and reason a rules author reads as `line:column: reason`: one
 * case per kind of error. json-syntax.test.ts checks, on random texts, that
 * it finds an error exactly when JSON.parse does.
 */
import { describe, expect, it } from "vitest";
import { findJsonSyntaxError, lineColumn } from "../../src/rules/json-syntax.ts";

const CONTROL = "control character in string (write it as an escape such as \\n)";

describe("findJsonSyntaxError, exactly", () => {
  it.each([
    ['{"a": 1,}', 8, "trailing comma before '}'"],
    ['{"a":{"b":1,}}', 12, "trailing comma before '}'"],
    ["[1,]", 3, "trailing comma before ']'"],
    ["[[],]", 4, "trailing comma before ']'"],
    ["[,1]", 1, 'expected a value, found ","'],
    // A key resets the comma: this is a missing value, not a trailing comma.
    ['{"x":1,"a":]', 11, 'expected a value, found "]"'],
    ["{a: 1}", 1, 'expected a double-quoted property name, found "a"'],
    ['{"a":1,', 7, "expected a double-quoted property name, found end of input"],
    ['{"a" 1}', 5, "expected ':' after property name, found \"1\""],
    ['{"a"', 4, "expected ':' after property name, found end of input"],
    ["", 0, "expected a value, found end of input"],
    [" \t\r\n", 4, "expected a value, found end of input"],
    ["[1,", 3, "expected a value, found end of input"],
    ['{"a": tru}', 6, 'expected a value, found "t"'],
    ["[-]", 1, 'expected a value, found "-"'],
    ["[1 2]", 3, "expected ',' or ']', found \"2\""],
    ['{"a":1 "b"}', 7, "expected ',' or '}', found \"\\\"\""],
    ["[1", 2, "expected ',' or ']', found end of input"],
    ["1 2", 2, 'unexpected "2" after the end of the JSON value'],
    ["01", 1, 'unexpected "1" after the end of the JSON value'],
    ["[1]]", 3, 'unexpected "]" after the end of the JSON value'],
    ['{"a":1}}', 7, 'unexpected "}" after the end of the JSON value'],
    ['"a\u0001"', 2, CONTROL],
    ['{"a\u001f":1}', 3, CONTROL],
    ['"\\x"', 1, "invalid escape in string"],
    ['"\\', 1, "invalid escape in string"],
    ['"\\u12G4"', 1, "invalid \\u escape in string"],
    ['"\\u12"', 1, "invalid \\u escape in string"],
    ['"abc', 0, "unterminated string"],
    ['["a", "b', 6, "unterminated string"],
    ['{"ab', 1, "unterminated string"],
  ] as const)("%j: offset %i, %s", (text, offset, reason) => {
    expect(() => JSON.parse(text)).toThrow();
    expect(findJsonSyntaxError(text)).toEqual({ offset, reason });
  });

  it.each([
    "{}",
    "{ }",
    "[ \n]",
    "[[]]",
    '{"a":[{}]}',
    ' \t\n\r{ "a" \n: 1 , "b":[true,false,null] }\n',
    '"\\u00e9\\n\\t\\/\\\\\\"\\b\\f\\r"',
    "-1.5e+3",
    "0",
    "1E-2",
    '"a b"',
  ])("%j is JSON", (text) => {
    expect(() => JSON.parse(text)).not.toThrow();
    expect(findJsonSyntaxError(text)).toBeUndefined();
  });
});

describe("lineColumn, past the end", () => {
  it("counts the lines of the text and the columns past its last line", () => {
    expect(lineColumn("a\nb", 10)).toEqual({ line: 2, column: 9 });
    expect(lineColumn("a\n\nb", 3)).toEqual({ line: 3, column: 1 });
  });
});
