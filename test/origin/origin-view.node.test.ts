/**
 * The pure pieces of the origin's view (docs/rules.md, "The origin's
 * view"), case by case: what each reads a client's spelling as.
 */
import { describe, expect, it } from "vitest";
import { adminPath } from "../../src/http/admin-path.ts";
import { decodedSlashes } from "../../src/http/canonical-path.ts";
import { isDroppedHeader } from "../../src/http/forward.ts";
import { type Env, readSettings } from "../../src/config.ts";
import { AmbiguousRequestError, cookieValue, headerValue, methodKey, originHost, originMethod, originPath } from "../../src/request/origin-view.ts";

describe("the origin's view, piece by piece", () => {
  it("settings: defaults, words in any case, a clear error naming the setting", () => {
    const read = (vars: Partial<Env>) => readSettings(vars);
    expect([
      read({}).methodOverride,
      read({ METHOD_OVERRIDE: " COUNT " }).methodOverride,
      read({ ENCODED_SLASHES: "" }).encodedSlashes,
      read({ ENCODED_SLASHES: "Keep" }).encodedSlashes,
    ]).toEqual(["strip", "count", "decode", "keep"]);
    expect(() => read({ METHOD_OVERRIDE: "honour" })).toThrow(/METHOD_OVERRIDE/);
    expect(() => read({ ENCODED_SLASHES: "allow" })).toThrow(/ENCODED_SLASHES/);
  });

  it("method: HEAD keys as GET; an override counts only on POST under count, and only one method", () => {
    expect(methodKey("HEAD")).toBe("GET");
    expect(methodKey("POST")).toBe("POST");
    const h = (o: Record<string, string>) => new Headers(o);
    expect(originMethod("post", h({ "x-http-method": "patch" }), "count")).toBe("PATCH");
    expect(originMethod("post", h({ x_http_method_override: "put" }), "count")).toBe("PUT");
    expect(originMethod("GET", h({ "x-http-method-override": "DELETE" }), "count")).toBe("GET");
    expect(originMethod("POST", h({ "x-http-method-override": "DELETE" }), "strip")).toBe("POST");
    expect(() => originMethod("POST", h({ "x-http-method-override": "DELETE", "x-method-override": "PUT" }), "count")).toThrow(AmbiguousRequestError);
    expect(() => originMethod("POST", h({ "x-http-method-override": "DEL ETE" }), "count")).toThrow(AmbiguousRequestError);
  });

  it("path: encoded slashes decoded and the path made canonical again, kept, or refused", () => {
    expect(decodedSlashes("/a%2Fb")).toBe("/a/b");
    expect(decodedSlashes("/a%2f%2F..%5Cb")).toBe("/b");
    expect(decodedSlashes("/a%20b")).toBe("/a%20b");
    expect(originPath("/a%2Fb", "keep")).toBe("/a%2Fb");
    expect(() => originPath("/a%5Cb", "reject")).toThrow(AmbiguousRequestError);
    expect(originPath("/a/b", "reject")).toBe("/a/b");
  });

  it("host, cookies, Authorization", () => {
    expect([originHost("API.Example.com."), originHost("a.b.."), originHost("x")]).toEqual(["api.example.com", "a.b", "x"]);
    expect([cookieValue('"X"'), cookieValue("%58"), cookieValue('"%58"'), cookieValue("%E0%A4%A"), cookieValue('"'), cookieValue("")]).toEqual([
      "X",
      "X",
      "X",
      "%E0%A4%A",
      '"',
      "",
    ]);
    expect([
      headerValue("authorization", "bearer  T"),
      headerValue("authorization", "BASIC dXM="),
      headerValue("x-api-key", "bearer T"),
      headerValue("authorization", "Negotiate"),
    ]).toEqual(["Bearer T", "Basic dXM=", "bearer T", "Negotiate"]);
  });

  it("/__ratelimit: exact, spelled otherwise, or not at all", () => {
    expect(adminPath("http://gw/__ratelimit/json")).toBe("exact");
    expect(adminPath("http://gw/__ratelimit")).toBe("exact");
    expect(adminPath("http://gw/__ratelimit?x")).toBe("exact");
    for (const path of ["//__ratelimit/x", "/__RateLimit", "/__ratelimit;p/x", "/%5F_ratelimit", "/a/%2E%2E/__ratelimit/x", "/__ratelimit%2Fx"]) {
      expect(adminPath(`http://gw${path}`), path).toBe("spelled");
    }
    for (const path of ["/", "/api/login", "/__ratelimitx", "/x/__ratelimit", "/a_b?__ratelimit"]) expect(adminPath(`http://gw${path}`), path).toBe("none");
  });

  it("headers an origin never gets from a client, and those it does", () => {
    for (const name of [
      "x-forwarded-host",
      "forwarded",
      "true-client-ip",
      "x-real-ip",
      "x_real_ip",
      "x_forwarded_for",
      "cf_connecting_ip",
      "x_floodgate_attempt",
      "x-http-method-override",
    ]) {
      expect(isDroppedHeader(name), name).toBe(true);
    }
    for (const name of ["x-forwarded-for", "cf-connecting-ip", "accept", "x-api_key"]) expect(isDroppedHeader(name), name).toBe(false);
    expect(isDroppedHeader("x-http-method-override", { methodOverride: "count" })).toBe(false);
    expect(isDroppedHeader("x-real-ip", { trustedProxyHeader: "x-real-ip" })).toBe(false);
    expect(isDroppedHeader("x_real_ip", { trustedProxyHeader: "x-real-ip" })).toBe(true);
  });
});
