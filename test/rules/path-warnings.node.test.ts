/**
 * `rules:check`'s warnings about paths no request is matched in as written
 * (src/rules/path-warnings.ts, docs/rules.md "Canonical paths"), in plain
 * Node so mutation testing sees them (docs/testing.md): each reason a route
 * pattern is read otherwise, and descriptor values of the built-in `path`
 * key, at exact JSON paths. test/cli/rules-check.test.mjs runs the command.
 */
import { describe, expect, it } from "vitest";
import { pathWarnings } from "../../src/rules/path-warnings.ts";

const says = (canonical: string) => `requests are compared in canonical form; write ${JSON.stringify(canonical)} to say so`;
const route = (path: unknown, descriptors: unknown[] = []) => ({ match: { path }, descriptors });
const messages = (doc: unknown) => pathWarnings(doc).map((w) => `${w.path}: ${w.message}`);

describe("pathWarnings", () => {
  it("says why each route pattern is read otherwise", () => {
    const doc = {
      domain: "a",
      routes: [
        route("/Login/"),
        route("//api/./v1;x=*"),
        route("/%7euser/%2e%2e/docs"),
        route("/a%2fb"),
        route("login"),
        route("/a;v=1"),
        route("/a b"),
        route("/api/*"),
        route("/"),
        route("/ok"),
      ],
    };
    expect(messages(doc)).toEqual([
      `$.routes[0].match.path: matched as "/login" (letter case folded, trailing slash dropped): ${says("/login")}`,
      `$.routes[1].match.path: matched as "/api/v1" (";" parameters dropped, and the "*" with them, dot segments resolved, repeated slashes merged): ${says("/api/v1")}`,
      `$.routes[2].match.path: matched as "/docs" (dot segments resolved, escapes of unreserved characters decoded): ${says("/docs")}`,
      `$.routes[3].match.path: matched as "/a/b" (encoded slashes read as "/"): ${says("/a/b")}`,
      `$.routes[4].match.path: matched as "/login" (a leading "/" added): ${says("/login")}`,
      `$.routes[5].match.path: matched as "/a" (";" parameters dropped): ${says("/a")}`,
      `$.routes[6].match.path: matched as "/a%20b" (characters percent-encoded): ${says("/a%20b")}`,
    ]);
  });

  it("keeps letter case in a case-sensitive domain", () => {
    const doc = { domain: "b", paths: { case_sensitive: true }, routes: [route("/Login"), route("/Login/")] };
    expect(messages(doc)).toEqual([`$.routes[1].match.path: matched as "/Login" (trailing slash dropped): ${says("/Login")}`]);
  });

  it("checks descriptor values of the path key, nested too, only when a route gives the built-in path", () => {
    const descriptors = [
      {
        key: "path",
        value: "/Login/",
        descriptors: [
          { key: "path", value: "/a//b" },
          { key: "path", value: "/fine" },
        ],
      },
      { key: "other", value: "/Login/" },
      "not a node",
    ];
    const builtin = { domain: "c", descriptors, routes: [route("/x", [[{ key: "path" }, { key: "remote_address" }]])] };
    expect(messages([{ domain: "z" }, builtin])).toEqual([
      '$[1].descriptors[0].value: the built-in "path" key reads canonical paths, so it never gives "/Login/"; write "/login"',
      '$[1].descriptors[0].descriptors[0].value: the built-in "path" key reads canonical paths, so it never gives "/a//b"; write "/a/b"',
    ]);
    // A path entry with its own value is no built-in path: the tree is not checked.
    const valued = { domain: "c", descriptors, routes: [route("/x", [[{ key: "path", value: "/Login/" }]])] };
    expect(messages(valued)).toEqual([]);
    // Nor is a route whose entries are other built-in keys.
    const other = { domain: "c", descriptors, routes: [route("/x", [[{ key: "remote_address" }]])] };
    expect(messages(other)).toEqual([]);
  });

  it("skips what is not a document, route, pattern or list", () => {
    expect(pathWarnings("text")).toEqual([]);
    expect(pathWarnings([null, 1])).toEqual([]);
    expect(pathWarnings({ domain: "d", routes: "none" })).toEqual([]);
    expect(pathWarnings({ domain: "d", paths: "x", routes: [null, { match: "x" }, route(7), { match: { path: "/A" }, descriptors: "no" }] })).toEqual([
      { path: "$.routes[3].match.path", message: `matched as "/a" (letter case folded): ${says("/a")}` },
    ]);
    expect(pathWarnings({ domain: "d", descriptors: "x", routes: [route("/a", [[{ key: "path" }], "x", [null]])] })).toEqual([]);
  });
});
