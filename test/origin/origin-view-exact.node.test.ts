/**
 * The origin's view (docs/rules.md, "The origin's view") at exact values:
 * every override header in both spellings, the refusals and their messages,
 * the Authorization forms an origin compares, header names with `_`.
 */
import { describe, expect, it } from "vitest";
import {
  AmbiguousRequestError,
  cookieValue,
  DuplicateValueError,
  headerValue,
  hyphenName,
  originHost,
  originMethod,
  originPath,
  underscoreHeaders,
} from "../../src/request/origin-view.ts";

const h = (init: Record<string, string>) => new Headers(init);

describe("the method a POST overrides to (METHOD_OVERRIDE=count)", () => {
  it("reads each override header in its hyphen or underscore spelling, trimmed and upper case", () => {
    for (const name of ["x-http-method-override", "x-http-method", "x-method-override"]) {
      expect(originMethod("POST", h({ [name]: " patch " }), "count"), name).toBe("PATCH");
      expect(originMethod("post", h({ [name.replaceAll("-", "_")]: "put" }), "count"), name).toBe("PUT");
    }
    expect(originMethod("POST", h({}), "count")).toBe("POST");
    expect(originMethod("post", h({ "x-other": "put" }), "count")).toBe("POST");
  });

  it("takes headers that agree, and refuses two methods or a value that is not a method, quoting 32 characters", () => {
    expect(originMethod("POST", h({ "x-http-method-override": "delete", "x-http-method": "DELETE", "x-method-override": "Delete" }), "count")).toBe("DELETE");
    expect(originMethod("POST", h({ "x-http-method-override": "delete", x_http_method_override: "put" }), "count")).toBe("DELETE");
    const refusal = (headers: Record<string, string>) => {
      try {
        originMethod("POST", h(headers), "count");
      } catch (error) {
        expect(error).toBeInstanceOf(AmbiguousRequestError);
        expect(error).toBeInstanceOf(DuplicateValueError);
        return (error as Error).message;
      }
      throw new Error("not refused");
    };
    expect(refusal({ "x-http-method": "GET", "x-method-override": "PUT" })).toBe('The method override "PUT" is not one method; send one.');
    expect(refusal({ "x-http-method-override": "" })).toBe('The method override "" is not one method; send one.');
    expect(refusal({ "x-http-method-override": "GET,PUT" })).toBe('The method override "GET,PUT" is not one method; send one.');
    expect(refusal({ "x-http-method-override": `${"A".repeat(40)} B` })).toBe(`The method override "${"A".repeat(32)}" is not one method; send one.`);
  });

  it("leaves every other method, and every method under strip, as sent (upper case)", () => {
    expect(originMethod("patch", h({ "x-http-method-override": "DELETE" }), "count")).toBe("PATCH");
    expect(originMethod("post", h({ "x-http-method-override": "DELETE" }), "strip")).toBe("POST");
  });
});

describe("the path an origin routes", () => {
  it("decodes %2F and %5C in either case under decode, and leaves other escapes", () => {
    expect(originPath("/a%2Fb", "decode")).toBe("/a/b");
    expect(originPath("/a%5Cb", "decode")).toBe("/a/b");
    expect(originPath("/a%2Fb%2F..%2Fc", "decode")).toBe("/a/c");
    expect(originPath("/a%20b", "decode")).toBe("/a%20b");
    expect(originPath("/a/b", "decode")).toBe("/a/b");
  });

  it("refuses an encoded slash or backslash under reject with a message saying what to send, and keeps it under keep", () => {
    const message = "The path holds an encoded slash (%2F or %5C), which origins read two ways; send the path with plain slashes.";
    expect(() => originPath("/a%2Fb", "reject")).toThrow(message);
    expect(() => originPath("/a%5Cb", "reject")).toThrow(AmbiguousRequestError);
    expect(originPath("/a%25b", "reject")).toBe("/a%25b");
    expect(originPath("/a%5Cb", "keep")).toBe("/a%5Cb");
  });
});

describe("hosts, cookies, Authorization and header names", () => {
  it("strips a cookie value's quotes only when they stand at both ends", () => {
    expect([cookieValue('""'), cookieValue('"a'), cookieValue('a"'), cookieValue('"a"'), cookieValue('"a%22"')]).toEqual(["", '"a', 'a"', "a", 'a"']);
  });

  it("drops every trailing dot of a host and folds its case", () => {
    expect([originHost("A.B..."), originHost("..."), originHost(""), originHost("a.B")]).toEqual(["a.b", "", "", "a.b"]);
  });

  it("writes the scheme of Authorization and Proxy-Authorization one way, and leaves other values and headers as sent", () => {
    expect(headerValue("proxy-authorization", "basic   dXM=")).toBe("Basic dXM=");
    expect(headerValue("authorization", " \tbEaReR\t tok en  ")).toBe("Bearer tok en");
    expect(headerValue("authorization", "bearer")).toBe("Bearer");
    expect(headerValue("authorization", "b")).toBe("B");
    expect(headerValue("authorization", "@bearer tok")).toBe("@bearer tok");
    expect(headerValue("authorization", "")).toBe("");
    expect(headerValue("x-authorization", "bearer tok")).toBe("bearer tok");
  });

  it("reads _ in a header name as -, and lists every header sent so, values in name order", () => {
    expect([hyphenName("X_Api_Key"), hyphenName("X-Api-Key"), hyphenName("x__a")]).toEqual(["x-api-key", "x-api-key", "x--a"]);
    const found = underscoreHeaders(h({ x_api_key: "1", "x-api_key": "2", "x-api-key": "3", accept: "a", user_agent: "u" }));
    // Headers iterate in name order: "x-api_key" before "x_api_key".
    expect([...found]).toEqual([
      ["user-agent", ["u"]],
      ["x-api-key", ["2", "1"]],
    ]);
    expect(underscoreHeaders(h({ "x-api-key": "3" })).size).toBe(0);
    expect([...underscoreHeaders(h({ _x: "1" }))]).toEqual([["-x", ["1"]]]);
  });
});
