/**
 * The canonical path (docs/rules.md, "Canonical paths"): examples, and
 * properties over generated families of spellings of one path.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalPath, foldPathCase } from "../../src/http/canonical-path.ts";
import { requestDescriptors } from "../../src/request/descriptors.ts";
import { compileRules } from "../../src/rules/index.ts";
import type { CompiledRules } from "../../src/rules/types.ts";

const folded = (path: string) => foldPathCase(canonicalPath(path));

describe("canonicalPath", () => {
  it.each([
    ["/login", "/login"],
    ["/", "/"],
    ["", "/"],
    ["//", "/"],
    ["/login/", "/login"],
    ["//login", "/login"],
    ["/a///b//", "/a/b"],
    ["/%6cogin", "/login"],
    ["/%6Cogin", "/login"],
    ["/%7e%2D%5f%2e%41%30", "/~-_.A0"],
    ["/a%2fb%3a", "/a%2Fb%3A"],
    ["/login;jsessionid=1", "/login"],
    ["/a;x=1/b", "/a/b"],
    ["/a/%3b/b", "/a/%3B/b"],
    ["/./login", "/login"],
    ["/x/../login", "/login"],
    ["/%2e/login", "/login"],
    ["/x/%2E%2e/login", "/login"],
    ["/x/.%2e/login", "/login"],
    ["/../../login", "/login"],
    ["/x/..;y/login", "/login"],
    ["/;x/login", "/login"],
    ["/a/.../b", "/a/.../b"],
    ["/.well-known/x", "/.well-known/x"],
    ["/caf\u00e9", "/caf%C3%A9"],
    ["/a b", "/a%20b"],
    ["/%", "/%25"],
    ["/%zz", "/%25zz"],
    ["/\ud800", "/%EF%BF%BD"],
    ["login", "/login"],
    ["/v1/*/x", "/v1/*/x"],
  ])("%j is %j", (path, canonical) => {
    expect(canonicalPath(path)).toBe(canonical);
  });

  it("folds ASCII letters and leaves escapes upper case", () => {
    expect(folded("/LOGIN")).toBe("/login");
    expect(folded("/Caf%c3%a9/%2f")).toBe("/caf%C3%A9/%2F");
    expect(foldPathCase("/login")).toBe("/login");
  });
});

// A plain path: canonical segments of unreserved and sub-delim characters,
// and escapes of the rest (never a dot segment, never empty, never ";").
const plainChar = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~") },
  { weight: 1, arbitrary: fc.constantFrom(..."!$&'()*+,=:@") },
  { weight: 1, arbitrary: fc.constantFrom("%2F", "%3B", "%25", "%C3%A9", "%3F") },
);
const plainSegment = fc
  .array(plainChar, { minLength: 1, maxLength: 6 })
  .map((chars) => chars.join(""))
  .filter((s) => s !== "." && s !== "..");
const plainPath = fc.array(plainSegment, { maxLength: 4 }).map((segments) => `/${segments.join("/")}`);

const UNRESERVED = /[A-Za-z0-9\-._~]/;
const hex = (c: string, upper: boolean) => {
  const h = c.charCodeAt(0).toString(16).padStart(2, "0");
  return `%${upper ? h.toUpperCase() : h}`;
};

/** Choices that respell one segment: case flips, escapes of unreserved characters, a `;` parameter. */
interface SegmentSpelling {
  readonly flips: readonly boolean[];
  readonly escapes: readonly boolean[];
  readonly upperHex: boolean;
  readonly param?: string;
}
const segmentSpelling = fc.record({
  flips: fc.array(fc.boolean(), { maxLength: 12 }),
  escapes: fc.array(fc.boolean(), { maxLength: 12 }),
  upperHex: fc.boolean(),
  param: fc.option(fc.stringMatching(/^[a-zA-Z0-9=;.%]{0,8}$/), { nil: undefined }),
});

function respellSegment(segment: string, how: SegmentSpelling, caseToo: boolean): string {
  let out = "";
  // Escapes ("%2F") are kept whole: their hex case is a separate choice.
  const tokens = segment.match(/%[0-9A-F]{2}|./gsu) ?? [];
  tokens.forEach((token, i) => {
    if (token.length === 3) out += how.upperHex ? token : token.toLowerCase();
    else if (how.escapes[i] && UNRESERVED.test(token)) out += hex(caseToo && how.flips[i] ? flip(token) : token, how.upperHex);
    else out += caseToo && how.flips[i] ? flip(token) : token;
  });
  return how.param === undefined ? out : `${out};${how.param}`;
}

function flip(c: string): string {
  return c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase();
}

/** Between segments: extra slashes, `.` segments, `x/..` detours (dots maybe escaped). */
const separator = fc.array(
  fc.oneof(
    fc.constant("/"),
    fc.constantFrom("/.", "/%2e", "/%2E"),
    fc.tuple(plainSegment, fc.constantFrom("..", "%2e%2e", ".%2E", "%2E.")).map(([x, up]) => `/${x}/${up}`),
  ),
  { maxLength: 3 },
);

/** Any spelling of `plain` (a canonical path). */
function spellingOf(plain: string, caseToo: boolean): fc.Arbitrary<string> {
  const segments = plain === "/" ? [] : plain.slice(1).split("/");
  return fc
    .record({
      spellings: fc.array(segmentSpelling, { minLength: segments.length, maxLength: segments.length }),
      separators: fc.array(separator, { minLength: segments.length + 1, maxLength: segments.length + 1 }),
      trailing: fc.boolean(),
    })
    .map(({ spellings, separators, trailing }) => {
      let spelling = "";
      segments.forEach((segment, i) => {
        spelling += `${separators[i].join("")}/${respellSegment(segment, spellings[i], caseToo)}`;
      });
      return spelling + separators[segments.length].join("") + (trailing || spelling === "" ? "/" : "");
    });
}

const family = (caseToo: boolean) => plainPath.chain((plain) => spellingOf(plain, caseToo).map((spelling) => ({ plain, spelling })));

describe("canonicalPath properties", () => {
  it("is idempotent, and so is folding case", () => {
    const anyPath = fc.oneof(
      fc.string({ unit: "grapheme-ascii" }),
      fc.string({ unit: "binary" }),
      family(true).map((f) => f.spelling),
    );
    fc.assert(
      fc.property(anyPath, (path) => {
        const once = canonicalPath(path);
        expect(canonicalPath(once)).toBe(once);
        expect(foldPathCase(foldPathCase(once))).toBe(foldPathCase(once));
        expect(canonicalPath(foldPathCase(once))).toBe(foldPathCase(once));
      }),
      { numRuns: 3000 },
    );
  });

  it("maps every spelling of a path (escapes, slashes, dot segments, ; parameters, trailing slash) to the plain one", () => {
    fc.assert(
      fc.property(family(false), ({ plain, spelling }) => {
        expect(canonicalPath(plain)).toBe(plain);
        expect(canonicalPath(spelling)).toBe(plain);
      }),
      { numRuns: 3000 },
    );
  });

  it("with case folded, maps every spelling in any letter case to the folded plain one", () => {
    fc.assert(
      fc.property(family(true), ({ plain, spelling }) => {
        expect(folded(spelling)).toBe(folded(plain));
      }),
      { numRuns: 3000 },
    );
  });
});

function rulesWithRoute(pattern: string, caseSensitive: boolean): CompiledRules {
  const result = compileRules({
    domain: "prop",
    paths: { case_sensitive: caseSensitive },
    routes: [{ match: { path: pattern }, descriptors: [[{ key: "route", value: "hit" }]] }],
  });
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.rules;
}

const routed = (rules: CompiledRules, path: string) => requestDescriptors(rules, new Request(`http://gw.test${path}`)).length > 0;

describe("route matching through requestDescriptors", () => {
  // Patterns: a spelling of the request's own path (or of another), maybe with a "*" glob after it.
  const GLOBS = ["", "/*", "*", "-*", "*x"];
  const routeAndRequest = fc.tuple(family(true), fc.boolean()).chain(([request, caseSensitive]) =>
    fc
      .tuple(
        fc.oneof(
          spellingOf(request.plain, true),
          family(true).map((f) => f.spelling),
        ),
        fc.constantFrom(...GLOBS),
      )
      .map(([route, glob]) => ({ ...request, route: route + glob, caseSensitive })),
  );

  it("matches a spelling exactly when it matches the spelling's plain path", () => {
    let matched = 0;
    fc.assert(
      fc.property(routeAndRequest, ({ route, plain, spelling, caseSensitive }) => {
        const rules = rulesWithRoute(route, caseSensitive);
        // Case-sensitive domains see the spelling's letter case: its plain path is the case-kept canonical form.
        const reference = caseSensitive ? canonicalPath(spelling) : plain;
        const hit = routed(rules, spelling);
        expect(hit).toBe(routed(rules, reference));
        if (hit) matched += 1;
      }),
      { numRuns: 1500 },
    );
    // Both answers are exercised, not only "no match".
    expect(matched).toBeGreaterThan(150);
  });

  it("matches the plain path with a route written in any spelling of it", () => {
    fc.assert(
      fc.property(family(true), ({ plain, spelling }) => {
        expect(routed(rulesWithRoute(spelling, false), plain)).toBe(true);
        // After a "/": a "*" right after a ";" parameter would be dropped with it (rules:check warns of that).
        expect(routed(rulesWithRoute(`${spelling}/*`, false), `${plain}/more`)).toBe(true);
      }),
      { numRuns: 1500 },
    );
  });
});
