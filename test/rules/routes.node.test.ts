import { describe, expect, it } from "vitest";
import { matchRoute } from "../../src/rules/index.ts";
import type { CompiledRoute } from "../../src/rules/types.ts";
import { domainOf } from "./helpers.ts";

const routesOf = (routes: unknown[]) => domainOf({ domain: "t", routes }).routes;
const only = (match: Record<string, unknown>): CompiledRoute => routesOf([{ match, descriptors: [] }])[0];

describe("route matchers", () => {
  it("upper-cases methods", () => {
    const route = only({ methods: ["post", "Get", "PURGE"] });
    expect([...route.methods!]).toEqual(["POST", "GET", "PURGE"]);
  });

  // The matcher reads canonical paths (test/security/paths.test.ts holds every spelling to it).
  it("matches a canonical path exactly or by * glob", () => {
    const exact = only({ path: "/login" });
    expect(exact.path!("/login")).toBe(true);
    expect(exact.path!("/logins")).toBe(false);
    const glob = only({ path: "/api/*" });
    expect(glob.path!("/api/v1/users")).toBe(true);
    // "/api/" was matched, and a trailing slash is no part of a canonical path.
    expect(glob.path!("/api")).toBe(true);
    expect(glob.path!("/apiary")).toBe(false);
    expect(only({ path: "/*" }).path!("/")).toBe(true);
    expect(only({ path: "/files/*.json" }).path!("/files/a/b.json")).toBe(true);
  });

  it("puts the pattern in canonical form, case folded unless the domain keeps case", () => {
    for (const pattern of ["/Login/", "//login", "/%6cogin", "/x/../login", "/login;jsessionid=1", "/./LOGIN"])
      expect(only({ path: pattern }).path!("/login"), pattern).toBe(true);
    expect(only({ path: "/API/*/" }).path!("/api/v1")).toBe(true);
    const kept = domainOf({ domain: "t", paths: { case_sensitive: true }, routes: [{ match: { path: "/Login/" }, descriptors: [] }] }).routes[0];
    expect(kept.path!("/Login")).toBe(true);
    expect(kept.path!("/login")).toBe(false);
  });

  it("matches hosts case-insensitively, exactly or by glob", () => {
    const exact = only({ host: "API.example.com" });
    expect(exact.host!("api.example.com")).toBe(true);
    expect(exact.host!("Api.Example.Com")).toBe(true);
    expect(exact.host!("example.com")).toBe(false);
    const glob = only({ host: "*.Example.com" });
    expect(glob.host!("eu.api.example.COM")).toBe(true);
    expect(glob.host!("example.com")).toBe(false);
  });

  it("leaves out matchers that are not given", () => {
    const route = only({});
    expect(route.methods).toBeUndefined();
    expect(route.path).toBeUndefined();
    expect(route.host).toBeUndefined();
  });
});

describe("route descriptors", () => {
  it("compiles every value source", () => {
    const [route] = routesOf([
      {
        match: {},
        descriptors: [
          [{ key: "remote_address" }, { key: "path" }, { key: "method" }, { key: "host" }],
          [
            { key: "api_key", header: "X-API-Key" },
            { key: "page", query: "Page" },
            { key: "sid", cookie: "Session" },
          ],
          [
            { key: "path", value: "/login" },
            { key: "tier", value: "gold" },
          ],
        ],
      },
    ]);
    expect(route.descriptors).toEqual([
      [
        { key: "remote_address", source: { kind: "remote_address" } },
        { key: "path", source: { kind: "path" } },
        { key: "method", source: { kind: "method" } },
        { key: "host", source: { kind: "host" } },
      ],
      [
        { key: "api_key", source: { kind: "header", name: "x-api-key" } },
        { key: "page", source: { kind: "query", name: "Page" } },
        { key: "sid", source: { kind: "cookie", name: "Session" } },
      ],
      [
        { key: "path", source: { kind: "value", value: "/login" } },
        { key: "tier", source: { kind: "value", value: "gold" } },
      ],
    ]);
  });

  it("allows a route with no descriptors (requests on it are not limited)", () => {
    expect(routesOf([{ match: { path: "/health" }, descriptors: [] }])[0].descriptors).toEqual([]);
  });
});

describe("matchRoute", () => {
  const routes = routesOf([
    { match: { methods: ["POST"], path: "/login" }, descriptors: [[{ key: "login", value: "1" }]] },
    { match: { host: "admin.*" }, descriptors: [[{ key: "admin", value: "1" }]] },
    { match: { path: "/*" }, descriptors: [[{ key: "remote_address" }]] },
  ]);
  const first = (method: string, path: string, host = "api.test") => routes.indexOf(matchRoute(routes, { method, path, host })!);

  it("takes the first route whose every condition holds", () => {
    expect(first("POST", "/login")).toBe(0);
    expect(first("post", "/login")).toBe(0);
    expect(first("GET", "/login")).toBe(2);
    expect(first("GET", "/login", "ADMIN.test")).toBe(1);
    expect(first("GET", "/")).toBe(2);
  });

  it("returns undefined when no route matches", () => {
    expect(matchRoute(routes, { method: "GET", path: "no-slash", host: "api.test" })).toBeUndefined();
    expect(matchRoute([], { method: "GET", path: "/", host: "x" })).toBeUndefined();
  });
});
