/**
 * A request's cost and the request the origin is sent, in plain Node
 * (mutation testing, docs/testing.md): exact costs, statuses and messages,
 * and the forwarded URL and headers. The gateway's own tests hold the same
 * through the whole pipeline in workerd (test/security/paths.test.ts,
 * test/hono/response-limits.test.ts).
 */
import { describe, expect, it } from "vitest";
import { MAX_REQUEST_COST, RequestCostError, requestCost } from "../../src/request/cost.ts";
import { forwardedRequest, limitedHeaders } from "../../src/request/forward-path.ts";
import { compileOnce } from "../../src/rules/index.ts";

const compiled = (rules: unknown) => compileOnce(rules, "the test's rules")();

function costError(run: () => number): { status: number; message: string } {
  try {
    run();
  } catch (error) {
    if (error instanceof RequestCostError) return { status: error.status, message: error.message };
    throw error;
  }
  throw new Error("no RequestCostError");
}

describe("requestCost", () => {
  const header = { kind: "header", name: "x-cost" } as const;
  const headers = (value: string) => new Headers({ "x-cost": value });

  it("takes a literal as it is", () => {
    expect(requestCost({ kind: "literal", value: 7 }, new Headers(), false)).toBe(7);
    expect(requestCost({ kind: "literal", value: 0 }, new Headers(), false)).toBe(0);
  });

  it("reads a whole number from the header, trimmed, up to MAX_REQUEST_COST; 0 as 1 unless allowZero", () => {
    expect(MAX_REQUEST_COST).toBe(4_294_967_295);
    expect(requestCost(header, headers("5"), false)).toBe(5);
    expect(requestCost(header, headers(" 12 "), false)).toBe(12);
    expect(requestCost(header, headers("4294967295"), false)).toBe(4_294_967_295);
    expect(requestCost(header, headers("0"), false)).toBe(1);
    expect(requestCost({ ...header, allowZero: false }, headers("0"), false)).toBe(1);
    expect(requestCost({ ...header, allowZero: true }, headers("0"), false)).toBe(0);
    expect(requestCost({ ...header, allowZero: true }, headers("3"), false)).toBe(3);
  });

  it("refuses a missing or malformed header with 400 naming it", () => {
    expect(costError(() => requestCost(header, new Headers(), false))).toEqual({
      status: 400,
      message: "The request header x-cost is required on this route: it gives the request's cost, a whole number from 0 to 4294967295.",
    });
    expect(costError(() => requestCost(header, headers("4294967296"), false))).toEqual({
      status: 400,
      message: 'The request header x-cost must be a whole number from 0 to 4294967295, got "4294967296".',
    });
    for (const bad of ["-1", "1.5", "1e3", "0x10", "", "12345678901", "a5", "5a"]) {
      expect(costError(() => requestCost(header, headers(bad), false)).message, bad).toBe(
        `The request header x-cost must be a whole number from 0 to 4294967295, got ${JSON.stringify(bad)}.`,
      );
    }
    const long = "9".repeat(60);
    expect(costError(() => requestCost(header, headers(long), false)).message).toBe(
      `The request header x-cost must be a whole number from 0 to 4294967295, got "${"9".repeat(40)}".`,
    );
  });

  it("charges body_bytes from Content-Length; a body without it is 411, no body costs 1 (or 0 with allowZero)", () => {
    const bytes = { kind: "body_bytes" } as const;
    expect(requestCost(bytes, new Headers({ "content-length": "12" }), true)).toBe(12);
    expect(requestCost(bytes, new Headers({ "content-length": "0" }), true)).toBe(1);
    expect(requestCost({ ...bytes, allowZero: true }, new Headers({ "content-length": "0" }), true)).toBe(0);
    expect(requestCost(bytes, new Headers(), false)).toBe(1);
    expect(requestCost({ ...bytes, allowZero: true }, new Headers(), false)).toBe(0);
    expect(costError(() => requestCost(bytes, new Headers(), true))).toEqual({
      status: 411,
      message: "This route charges the request body's size in bytes: send Content-Length (chunked bodies are not accepted).",
    });
    expect(costError(() => requestCost(bytes, new Headers({ "content-length": "x" }), true))).toEqual({
      status: 400,
      message: 'The Content-Length must be a whole number from 0 to 4294967295, got "x".',
    });
  });
});

describe("forwardedRequest", () => {
  const canonical = (extra: Record<string, unknown> = {}) =>
    compiled({
      domain: "d",
      paths: { forward: "canonical", ...extra },
      routes: [{ match: { path: "/login" }, descriptors: [[{ key: "remote_address" }]] }],
    });

  it("forwards the canonical path of a matching route, letter case as sent, query unchanged", () => {
    const sent = new Request("http://gw//Login/?a=1", { method: "POST", body: "x", headers: { "x-h": "v" } });
    const forwarded = forwardedRequest(canonical(), sent);
    expect(forwarded.url).toBe("http://gw/Login?a=1");
    expect(forwarded.method).toBe("POST");
    expect(forwarded.headers.get("x-h")).toBe("v");
  });

  it("sends the request itself when the path is canonical, no route matches, or no domain forwards canonical paths", () => {
    const plain = new Request("http://gw/login");
    expect(forwardedRequest(canonical(), plain)).toBe(plain);
    const other = new Request("http://gw//other/");
    expect(forwardedRequest(canonical(), other)).toBe(other);
    const asSent = new Request("http://gw//login/");
    expect(forwardedRequest(compiled({ domain: "d", routes: [{ match: { path: "/login" }, descriptors: [[{ key: "remote_address" }]] }] }), asSent)).toBe(
      asSent,
    );
    // Case-sensitive paths: /Login is not /login.
    const cased = new Request("http://gw//Login/");
    expect(forwardedRequest(canonical({ case_sensitive: true }), cased)).toBe(cased);
    expect(forwardedRequest(canonical({ case_sensitive: true }), new Request("http://gw//login/")).url).toBe("http://gw/login");
  });

  it("tries every domain that forwards canonical paths", () => {
    const rules = compiled([
      { domain: "a", paths: { forward: "canonical" }, routes: [{ match: { path: "/a" }, descriptors: [[{ key: "remote_address" }]] }] },
      { domain: "b", paths: { forward: "canonical" }, routes: [{ match: { path: "/b" }, descriptors: [[{ key: "remote_address" }]] }] },
    ]);
    expect(forwardedRequest(rules, new Request("http://gw//b/")).url).toBe("http://gw/b");
  });

  it("joins a limited header sent as several lines into one, and leaves the others alone", () => {
    const rules = compiled({
      domain: "h",
      routes: [{ match: {}, descriptors: [[{ key: "api_key", header: "X_Api_Key" }], [{ key: "t", header: "x-tenant" }]] }],
    });
    expect(limitedHeaders(rules)).toEqual(["x-api-key", "x-tenant"]);
    expect(limitedHeaders(rules)).toBe(limitedHeaders(rules));
    const headers = new Headers();
    headers.append("x-api-key", "k1");
    headers.append("x-api-key", "k2");
    headers.append("x-other", "o1");
    headers.append("x-other", "o2");
    const sent = new Request("http://gw/", { headers });
    const forwarded = forwardedRequest(rules, sent);
    // A new request (Headers.get joins lines either way; the copy sets the one joined line).
    expect(forwarded).not.toBe(sent);
    expect(forwarded.headers.get("x-api-key")).toBe("k1, k2");
    expect(forwarded.headers.get("x-other")).toBe("o1, o2");
    const single = new Request("http://gw/", { headers: { "x-api-key": "k1", "x-tenant": "t", "x-other": "o1, o2" } });
    expect(forwardedRequest(rules, single)).toBe(single);
    // An empty first line: the joined text starts with the comma, and is still sent as one line.
    const emptyFirst = new Headers();
    emptyFirst.append("x-api-key", "");
    emptyFirst.append("x-api-key", "k2");
    const sentEmptyFirst = new Request("http://gw/", { headers: emptyFirst });
    expect(sentEmptyFirst.headers.get("x-api-key")).toBe(", k2");
    expect(forwardedRequest(rules, sentEmptyFirst)).not.toBe(sentEmptyFirst);
    expect(limitedHeaders(compiled({ domain: "n", routes: [{ match: {}, descriptors: [[{ key: "remote_address" }]] }] }))).toEqual([]);
  });
});
