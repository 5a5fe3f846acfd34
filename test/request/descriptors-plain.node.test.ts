/**
 * What a request's descriptors read, as a client could spell it: repeated
 * parameters and cookies under each `duplicate_values`, headers under an
 * underscore spelling, the origin's path, method and host, the client address
 * per domain, and each kind of route cost. Plain (no bindings), so the
 * mutation run takes it too (docs/testing.md, "Mutation testing").
 */
import { describe, expect, it } from "vitest";
import { RequestCostError } from "../../src/request/cost.ts";
import { AmbiguousRequestError, DuplicateValueError, type MappingOptions, parseCookies, requestDescriptors } from "../../src/request/descriptors.ts";
import { compileOnce } from "../../src/rules/index.ts";

const compiled = (rules: unknown) => compileOnce(rules, "the test's rules")();

/** Each domain's descriptors as `key=value` lines, in order. */
function read(rules: unknown, request: Request, options: MappingOptions = {}) {
  return requestDescriptors(compiled(rules), request, options).map((d) => ({
    domain: d.domain.domain,
    descriptors: d.descriptors.map((entries) => entries.map((e) => `${e.key}=${e.value}`).join(" ")),
  }));
}

const oneEntry = (entry: Record<string, unknown>, domain: Record<string, unknown> = {}) => [
  { domain: "d", ...domain, routes: [{ match: {}, descriptors: [[{ key: "k", ...entry }]] }] },
];
const entryValue = (entry: Record<string, unknown>, request: Request, domain: Record<string, unknown> = {}, options: MappingOptions = {}) =>
  read(oneEntry(entry, domain), request, options)[0]?.descriptors[0];

describe("query parameters and cookies sent more than once", () => {
  it("refuses different values by default, naming the parameter or cookie; one value repeated is that value", () => {
    const query = (q: string) => entryValue({ query: "page" }, new Request(`http://x/?${q}`));
    expect(query("page=2")).toBe("k=2");
    expect(query("page=2&page=2&page=2")).toBe("k=2");
    expect(query("page=")).toBe("k=");
    expect(query("other=1")).toBeUndefined();
    expect(() => query("page=1&page=2")).toThrow(
      new DuplicateValueError('query parameter "page"', 'The query parameter "page" is sent more than once with different values; send it once.'),
    );
    // The first and the last agree; the one between them is what another copy-picking origin would read.
    expect(() => query("page=1&page=2&page=1")).toThrow(DuplicateValueError);
    const cookie = (c: string) => entryValue({ cookie: "sid" }, new Request("http://x/", { headers: { cookie: c } }));
    expect(cookie("sid=a; sid=a")).toBe("k=a");
    expect(cookie("other=a")).toBeUndefined();
    expect(entryValue({ cookie: "sid" }, new Request("http://x/"))).toBeUndefined();
    expect(() => cookie("sid=a; sid=b")).toThrow('The cookie "sid" is sent more than once with different values; send it once.');
    expect(() => cookie("sid=a, sid=b")).toThrow(DuplicateValueError);
  });

  it('reads the copy "first" or "last" names', () => {
    const url = "http://x/?page=1&page=2&page=3";
    expect(entryValue({ query: "page" }, new Request(url), { duplicate_values: "first" })).toBe("k=1");
    expect(entryValue({ query: "page" }, new Request(url), { duplicate_values: "last" })).toBe("k=3");
    const cookies = new Request("http://x/", { headers: { cookie: "sid=a; sid=b; sid=c" } });
    expect(entryValue({ cookie: "sid" }, cookies, { duplicate_values: "first" })).toBe("k=a");
    expect(entryValue({ cookie: "sid" }, cookies, { duplicate_values: "last" })).toBe("k=c");
  });

  it("parses a cookie value as frameworks do: after the first =, trimmed, unquoted, decoded", () => {
    expect(parseCookies(' a = b=c ; q="%41%42" ; ; =v; n').get("a")).toEqual(["b=c"]);
    expect([...parseCookies(' a = b=c ; q="%41%42" ; ; =v; n')]).toEqual([
      ["a", ["b=c"]],
      ["q", ["AB"]],
    ]);
    expect(parseCookies("").size).toBe(0);
  });
});

describe("headers", () => {
  const apiKey = (headers: HeadersInit, header = "X-Api-Key") => entryValue({ header }, new Request("http://x/", { headers }));

  it("reads a header under its underscore spelling as the header itself", () => {
    expect(apiKey({ "x-api-key": "k1" })).toBe("k=k1");
    expect(apiKey({ x_api_key: "k1" })).toBe("k=k1");
    expect(apiKey({ "x_api-key": "k1" }, "x_api_key")).toBe("k=k1");
    expect(apiKey({ "x-api-key": "k1", x_api_key: "k1", "x_api-key": "k1" })).toBe("k=k1");
    expect(apiKey({ "x-other": "k1" })).toBeUndefined();
    expect(apiKey({ _key: "k1" }, "-key")).toBe("k=k1");
  });

  it("refuses spellings that disagree, whether or not the hyphen spelling is among them", () => {
    const disagree = 'The header "x-api-key" (in more than one spelling) is sent more than once with different values; send it once.';
    expect(() => apiKey({ "x-api-key": "k1", x_api_key: "k2" })).toThrow(disagree);
    expect(() => apiKey({ x_api_key: "k1", "x-api_key": "k2" })).toThrow(disagree);
    expect(() => apiKey({ x_api_key: "k1", "x-api_key": "k1", "x_api-key": "k2" })).toThrow(DuplicateValueError);
  });

  it("joins copies of one header with a comma, as the origin reads them", () => {
    const headers = new Headers();
    headers.append("x-api-key", "a");
    headers.append("x-api-key", "b");
    expect(apiKey(headers)).toBe("k=a, b");
  });

  it("reads the Authorization scheme without case, in every spelling, and compares spellings so", () => {
    expect(apiKey({ authorization: "bearer   tok" }, "authorization")).toBe("k=Bearer tok");
    expect(apiKey({ authorization: "BEARER tok", proxy_authorization: "x" }, "authorization")).toBe("k=Bearer tok");
    expect(apiKey({ "proxy-authorization": "basic abc", proxy_authorization: "Basic abc" }, "proxy-authorization")).toBe("k=Basic abc");
    expect(() => apiKey({ "proxy-authorization": "basic abc", proxy_authorization: "Basic abd" }, "proxy-authorization")).toThrow(DuplicateValueError);
    expect(apiKey({ x_token: "1", xtoken: "2" }, "xtoken")).toBe("k=2");
  });
});

describe("the path, method and host the origin sees", () => {
  const twoDomains = [
    { domain: "folded", routes: [{ match: { path: "/v1/*" }, descriptors: [[{ key: "path" }]] }] },
    { domain: "exact", paths: { case_sensitive: true }, routes: [{ match: { path: "/V1/*" }, descriptors: [[{ key: "path" }]] }] },
    { domain: "folded-too", routes: [{ match: {}, descriptors: [[{ key: "path" }]] }] },
  ];

  it("folds letter case for a domain unless it is case-sensitive, each domain reading its own form", () => {
    expect(read(twoDomains, new Request("http://x/V1/Items"))).toEqual([
      { domain: "folded", descriptors: ["path=/v1/items"] },
      { domain: "exact", descriptors: ["path=/V1/Items"] },
      { domain: "folded-too", descriptors: ["path=/v1/items"] },
    ]);
    expect(read(twoDomains, new Request("http://x/v1/Items")).map((d) => d.domain)).toEqual(["folded", "folded-too"]);
  });

  it("decodes encoded slashes by default, keeps or refuses them as asked", () => {
    const path = (url: string, options: MappingOptions = {}) => entryValue({ key: "path" }, new Request(url), {}, options);
    expect(path("http://x/a%2Fb%2F..%2Fc")).toBe("path=/a/c");
    expect(path("http://x/a%5Cb")).toBe("path=/a/b");
    expect(path("http://x/a%2Fb", { encodedSlashes: "keep" })).toBe("path=/a%2Fb");
    expect(path("http://x/a%20b", { encodedSlashes: "reject" })).toBe("path=/a%20b");
    expect(path("http://x/a/b", { encodedSlashes: "reject" })).toBe("path=/a/b");
    expect(() => path("http://x/a%2fb", { encodedSlashes: "reject" })).toThrow(AmbiguousRequestError);
  });

  it("keys a POST on its override header only under count, and HEAD as GET", () => {
    const method = (init: RequestInit, options: MappingOptions = {}) => entryValue({ key: "method" }, new Request("http://x/", init), {}, options);
    const override = { method: "POST", headers: { "x-http-method-override": "delete" } };
    expect(method(override)).toBe("method=POST");
    expect(method(override, { methodOverride: "strip" })).toBe("method=POST");
    expect(method(override, { methodOverride: "count" })).toBe("method=DELETE");
    expect(method({ method: "HEAD" })).toBe("method=GET");
    expect(method({ method: "put" })).toBe("method=PUT");
  });

  it("reads the host without case or trailing dot, and matches routes on it", () => {
    const rules = [{ domain: "d", routes: [{ match: { host: "api.example.com" }, descriptors: [[{ key: "host" }]] }] }];
    expect(read(rules, new Request("http://API.Example.com./x"))).toEqual([{ domain: "d", descriptors: ["host=api.example.com"] }]);
    expect(read(rules, new Request("http://api.example.org/x"))).toEqual([]);
  });
});

describe("the client address", () => {
  const rules = [
    { domain: "by56", routes: [{ match: {}, descriptors: [[{ key: "remote_address" }]] }] },
    { domain: "by64", ipv6_prefix: 64, routes: [{ match: {}, descriptors: [[{ key: "remote_address" }]] }] },
  ];

  it("reduces one address to each domain's IPv6 prefix", () => {
    const request = new Request("http://x/", { headers: { "cf-connecting-ip": "2001:db8:1:2ff:5::1" } });
    expect(read(rules, request)).toEqual([
      { domain: "by56", descriptors: ["remote_address=2001:db8:1:200::/56"] },
      { domain: "by64", descriptors: ["remote_address=2001:db8:1:2ff::/64"] },
    ]);
  });

  it("reads the proxy header the options name, only with trusted hops", () => {
    const headers = { "cf-connecting-ip": "192.0.2.1", "x-forwarded-for": "198.51.100.1", "x-real-ip": "198.51.100.2" };
    const address = (options: MappingOptions) => read(rules, new Request("http://x/", { headers }), options)[0].descriptors[0];
    expect(address({})).toBe("remote_address=192.0.2.1");
    expect(address({ trustedProxyHops: 1 })).toBe("remote_address=198.51.100.1");
    expect(address({ trustedProxyHops: 1, trustedProxyHeader: "x-real-ip" })).toBe("remote_address=198.51.100.2");
    expect(address({ trustedProxyHeader: "x-real-ip" })).toBe("remote_address=192.0.2.1");
  });
});

describe("descriptors without a value", () => {
  it("skips a descriptor at its first missing entry, without reading the rest", () => {
    const rules = [
      {
        domain: "d",
        routes: [
          {
            match: {},
            descriptors: [
              [
                { key: "a", header: "x-missing" },
                { key: "b", query: "q" },
              ],
              [{ key: "c", value: "v" }],
            ],
          },
        ],
      },
    ];
    // `q` twice with different values would be refused, had the descriptor read it.
    expect(read(rules, new Request("http://x/?q=1&q=2"))).toEqual([{ domain: "d", descriptors: ["c=v"] }]);
  });

  it("leaves out a domain whose matching route has no descriptor with every value, and goes on to the next", () => {
    const rules = [
      { domain: "first", routes: [{ match: {}, descriptors: [[{ key: "a", header: "x-missing" }]] }] },
      { domain: "second", routes: [{ match: { path: "/nothing" }, descriptors: [[{ key: "a", value: "v" }]] }] },
      { domain: "third", routes: [{ match: {}, descriptors: [[{ key: "a", value: "v" }]] }] },
    ];
    expect(read(rules, new Request("http://x/y"))).toEqual([{ domain: "third", descriptors: ["a=v"] }]);
  });
});

describe("route costs", () => {
  const route = (extra: Record<string, unknown>) => [
    { domain: "d", routes: [{ match: {}, descriptors: [[{ key: "a", value: "1" }], [{ key: "b", value: "2" }]], ...extra }] },
  ];
  const mapped = (extra: Record<string, unknown>, init: RequestInit = {}) => {
    const [found] = requestDescriptors(compiled(route(extra)), new Request("http://x/", init));
    const { domain, descriptors, ...rest } = found;
    return rest;
  };

  it("charges every descriptor the route's cost, and says nothing of cost on a route without one", () => {
    expect(mapped({})).toEqual({});
    expect(Object.keys(mapped({}))).toEqual([]);
    expect(mapped({ cost: 3 })).toEqual({ costs: [3, 3] });
    expect(Object.keys(mapped({ cost: 3 }))).toEqual(["costs"]);
    expect(mapped({ cost: { header: "x-cost" } }, { headers: { "x-cost": "5" } })).toEqual({ costs: [5, 5] });
  });

  it("charges a body's Content-Length in content bytes; no body at all costs one", () => {
    const body = { cost: { body_bytes: true } };
    expect(mapped(body, { method: "POST", headers: { "content-length": "12" } })).toEqual({ costs: [12, 12], quotaUnit: "content-bytes" });
    expect(mapped(body)).toEqual({ costs: [1, 1], quotaUnit: "content-bytes" });
    const chunked = () => mapped(body, { method: "POST", body: "twelve bytes" });
    expect(chunked).toThrow(RequestCostError);
    try {
      chunked();
    } catch (error) {
      expect((error as RequestCostError).status).toBe(411);
    }
  });

  it("refuses a missing cost header with 400", () => {
    try {
      mapped({ cost: { header: "x-cost" } });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(RequestCostError);
      expect((error as RequestCostError).status).toBe(400);
    }
  });

  it("carries the response header to charge afterwards, alone or beside a cost", () => {
    expect(mapped({ cost_from_response: { header: "X-Tokens-Used" } })).toEqual({ costFromResponse: { kind: "header" as const, name: "x-tokens-used" } });
    expect(Object.keys(mapped({ cost_from_response: { header: "x-tokens-used" } }))).toEqual(["costFromResponse"]);
    expect(mapped({ cost: 2, cost_from_response: { header: "x-tokens-used" } })).toEqual({
      costs: [2, 2],
      costFromResponse: { kind: "header" as const, name: "x-tokens-used" },
    });
  });
});
