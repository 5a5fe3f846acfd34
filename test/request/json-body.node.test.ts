/**
 * Reading a request's JSON body (docs/llm.md): where a malformed body goes
 * wrong (held against JSON.parse on random texts), duplicate members on
 * the paths read, which Content-Types are JSON, the values entries take.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { requestCost } from "../../src/request/cost.ts";
import { duplicateOnPaths } from "../../src/request/json-duplicates.ts";
import { readsAsJson, scalarAt } from "../../src/request/json-body.ts";
import { jsonSyntaxError } from "../../src/request/json-syntax-error.ts";
import { parses } from "../support/json-oracle.ts";

describe("jsonSyntaxError", () => {
  it("finds an error exactly when JSON.parse refuses the text", () => {
    const texts = fc.oneof(
      fc.json(),
      fc.json().map((t) => t.slice(0, -1)),
      fc
        .tuple(fc.json(), fc.nat(), fc.constantFrom(",", "}", "]", '"', ":", "\\", "x", " ", "\u0001", "{"))
        .map(([t, at, c]) => t.slice(0, at % (t.length + 1)) + c + t.slice(at % (t.length + 1))),
      fc.string(),
    );
    fc.assert(
      fc.property(texts, (text) => (jsonSyntaxError(text) === undefined) === parses(text)),
      { numRuns: 3000 },
    );
  });

  it("names the line, column and what was expected", () => {
    expect(jsonSyntaxError('{"model": "m",\n "max_tokens": 5,}')).toEqual({ offset: 32, line: 2, column: 18, expected: "a member name in double quotes" });
    expect(jsonSyntaxError('{"a":1')).toMatchObject({ offset: 6, expected: '"," or "}" (the body ended)' });
    expect(jsonSyntaxError('{"a":1}x')).toMatchObject({ offset: 7, expected: "the end of the body" });
  });

  it("takes a million nested brackets without overflowing the stack", () => {
    expect(jsonSyntaxError("[".repeat(1_000_000))).toMatchObject({ offset: 1_000_000 });
  });
});

describe("duplicateOnPaths", () => {
  it("finds a member twice in an object on a path read, names compared decoded", () => {
    expect(duplicateOnPaths('{"model":"a","model":"b"}', [["model"]])).toBe("model");
    expect(duplicateOnPaths('{"model":"a","mod\\u0065l":"b"}', [["model"]])).toBe("model");
    expect(duplicateOnPaths('{"m":{"u":1,"x":"\\"}","u":2}}', [["m", "u"]])).toBe("m.u");
    expect(duplicateOnPaths('{"m":{"u":1},"m":{"u":2}}', [["m", "u"]])).toBe("m");
  });

  it("looks nowhere else", () => {
    expect(duplicateOnPaths('{"messages":[{"role":"a","role":"b"}],"model":"m"}', [["model"]])).toBeUndefined();
    expect(duplicateOnPaths('{"x":{"model":1,"model":2},"model":"m"}', [["model"]])).toBeUndefined();
    expect(duplicateOnPaths('["model","model"]', [["model"]])).toBeUndefined();
  });

  it("agrees with a brute-force count on random documents", () => {
    const doc = fc.array(fc.tuple(fc.constantFrom("model", "max_tokens", "x"), fc.oneof(fc.json(), fc.constant('{"model":1,"model":2}'))), { maxLength: 6 });
    fc.assert(
      fc.property(doc, (members) => {
        const text = `{${members.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(",")}}`;
        const names = members.map(([k]) => k);
        const twice = names.find((k, i) => k !== "x" && names.indexOf(k) !== i);
        expect(duplicateOnPaths(text, [["model"], ["max_tokens"]]) !== undefined).toBe(twice !== undefined);
      }),
    );
  });
});

describe("readsAsJson", () => {
  it.each([
    ["application/json", true],
    ["Application/JSON; charset=utf-8", true],
    ["application/vnd.api+json", true],
    [null, true],
    ["text/plain", false],
    ["application/jsonx", false],
    ["multipart/form-data; boundary=x", false],
    ["application/x-www-form-urlencoded", false],
  ] as const)("%s → %s", (type, json) => {
    expect(readsAsJson(type)).toBe(json);
  });
});

describe("values and reservations from a body", () => {
  it("takes strings and numbers, nothing else", () => {
    const body = { model: "gpt", n: 2.5, big: 1e21, flag: true, none: null, list: ["a"], obj: { a: 1 }, ["__proto__"]: "p" };
    expect(scalarAt(body, ["model"])).toBe("gpt");
    expect(scalarAt(body, ["n"])).toBe("2.5");
    expect(scalarAt(body, ["big"])).toBe("1e+21");
    for (const name of ["flag", "none", "list", "obj", "absent", "constructor", "toString"]) expect(scalarAt(body, [name]), name).toBeUndefined();
    expect(scalarAt(JSON.parse('{"__proto__":"p"}'), ["__proto__"])).toBe("p");
    expect(scalarAt({ a: { b: "deep" } }, ["a", "b"])).toBe("deep");
    expect(scalarAt({ a: ["x"] }, ["a", "0"])).toBeUndefined();
  });

  it("reserves the whole number in the body, else the default, at most the max, at least 1", () => {
    const cost = { kind: "json_body", path: ["max_tokens"], fallback: 64, max: 1000 } as const;
    const reserve = (body: unknown) => requestCost(cost, new Headers(), true, body);
    expect(reserve({ max_tokens: 300 })).toBe(300);
    expect(reserve({ max_tokens: 5000 })).toBe(1000);
    expect(reserve({ max_tokens: 0 })).toBe(1);
    expect(requestCost({ ...cost, allowZero: true }, new Headers(), true, { max_tokens: 0 })).toBe(0);
    for (const value of [-1, 1.5, "300", null, [300], Number.NaN]) expect(reserve({ max_tokens: value }), String(value)).toBe(64);
    expect(reserve(undefined)).toBe(64);
  });
});
