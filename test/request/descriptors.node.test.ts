import { describe, expect, it } from "vitest";
import { parseCookies, requestDescriptors } from "../../src/request/descriptors.ts";
import { compileOnce } from "../../src/rules/index.ts";

// Plain (no bindings), so the mutation run takes it too (docs/testing.md, "Mutation testing").
const compiled = (rules: unknown) => compileOnce(rules, "the test's rules")();

const rules = compiled([
  {
    domain: "a",
    routes: [
      { match: { methods: ["POST"], path: "/login" }, descriptors: [[{ key: "path", value: "/login" }, { key: "remote_address" }]] },
      {
        match: { path: "/v1/*", host: "api.example.com" },
        descriptors: [
          [{ key: "api_key", header: "X-Api-Key" }],
          [
            { key: "page", query: "page" },
            { key: "session", cookie: "sid" },
          ],
          [{ key: "method" }, { key: "host" }, { key: "path" }],
        ],
      },
    ],
  },
  { domain: "b", routes: [{ match: {}, descriptors: [[{ key: "tenant", value: "all" }]] }] },
]);

const entries = (request: Request, opts = {}) => requestDescriptors(rules, request, opts).map((d) => ({ domain: d.domain.domain, descriptors: d.descriptors }));

describe("request → descriptors (routes)", () => {
  it("takes the first matching route per domain and builds every source", () => {
    const request = new Request("http://api.example.com/v1/items?page=3", {
      headers: { "x-api-key": "k1", cookie: "a=1; sid=s-9", "cf-connecting-ip": "192.0.2.1" },
    });
    expect(entries(request)).toEqual([
      {
        domain: "a",
        descriptors: [
          [{ key: "api_key", value: "k1" }],
          [
            { key: "page", value: "3" },
            { key: "session", value: "s-9" },
          ],
          [
            { key: "method", value: "GET" },
            { key: "host", value: "api.example.com" },
            { key: "path", value: "/v1/items" },
          ],
        ],
      },
      { domain: "b", descriptors: [[{ key: "tenant", value: "all" }]] },
    ]);
  });

  it("skips a descriptor with an entry that has no value, keeping the others", () => {
    const request = new Request("http://api.example.com/v1/items?page=3");
    const [a] = entries(request);
    expect(a.descriptors.map((d) => d.map((e) => e.key))).toEqual([["method", "host", "path"]]);
  });

  it("matches methods and hosts as the route says", () => {
    expect(entries(new Request("http://other.example.com/v1/x")).map((d) => d.domain)).toEqual(["b"]);
    const login = entries(new Request("http://x/login", { method: "POST", headers: { "cf-connecting-ip": "2001:db8::5" } }));
    expect(login[0].descriptors).toEqual([
      [
        { key: "path", value: "/login" },
        { key: "remote_address", value: "2001:db8:0:0::/56" },
      ],
    ]);
    expect(entries(new Request("http://x/login")).map((d) => d.domain)).toEqual(["b"]);
  });

  it("reads the client from X-Forwarded-For only with trusted proxy hops", () => {
    const request = () => new Request("http://x/login", { method: "POST", headers: { "cf-connecting-ip": "192.0.2.9", "x-forwarded-for": "198.51.100.1" } });
    expect(entries(request())[0].descriptors[0][1].value).toBe("192.0.2.9");
    expect(entries(request(), { trustedProxyHops: 1 })[0].descriptors[0][1].value).toBe("198.51.100.1");
  });

  it("parses cookies, keeping every value sent under one name, and copies of the header joined by commas", () => {
    expect([...parseCookies("a=1; b = two ; a=3; junk; =x")]).toEqual([
      ["a", ["1", "3"]],
      ["b", ["two"]],
    ]);
    expect(parseCookies("sid=junk, sid=real").get("sid")).toEqual(["junk", "real"]);
    expect(parseCookies(null).size).toBe(0);
  });
});
