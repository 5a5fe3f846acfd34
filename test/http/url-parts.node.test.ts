import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { urlParts } from "../../src/http/url-parts.ts";

const IN_WORKERD = navigator.userAgent === "Cloudflare-Workers";

const viaUrl = (href: string) => {
  const url = new URL(href);
  return { path: url.pathname, host: url.hostname };
};

// Pieces chosen to hit what the string reading must get right: user info
// (with "@" and ":"), ports, IPv6 and IPv4 hosts, upper case, dot segments,
// percent escapes, "@", ":", "?" and "#" in the path, empty queries.
const label = fc.stringMatching(/^[A-Za-z0-9]([A-Za-z0-9-]{0,8}[A-Za-z0-9])?$/);
const host = fc.oneof(
  fc.array(label, { minLength: 1, maxLength: 3 }).map((labels) => labels.join(".")),
  fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((parts) => parts.join(".")),
  fc.constantFrom("[::1]", "[2001:DB8::7]", "[fe80::1:2]", "localhost", "xn--nxasmq6b.example"),
);
const segment = fc.stringMatching(/^[A-Za-z0-9._~%@:!$&'()*+,;= -]{0,8}$/).filter((s) => !/%(?![0-9A-Fa-f]{2})/.test(s));
const raw = fc
  .record({
    scheme: fc.constantFrom("http", "https", "HTTP"),
    user: fc.option(fc.constantFrom("user", "u:p", "a%40b", "x:y@z"), { nil: undefined }),
    host,
    port: fc.option(fc.integer({ min: 0, max: 65535 }), { nil: undefined }),
    segments: fc.array(fc.oneof(segment, fc.constantFrom(".", "..", "")), { maxLength: 5 }),
    query: fc.option(fc.stringMatching(/^[A-Za-z0-9=&?/:@#]{0,10}$/), { nil: undefined }),
    hash: fc.option(fc.stringMatching(/^[A-Za-z0-9?#/]{0,6}$/), { nil: undefined }),
  })
  .map(
    (p) =>
      `${p.scheme}://${p.user !== undefined ? `${p.user}@` : ""}${p.host}${p.port !== undefined ? `:${p.port}` : ""}` +
      `/${p.segments.join("/")}${p.query !== undefined ? `?${p.query}` : ""}${p.hash !== undefined ? `#${p.hash}` : ""}`,
  );

describe("urlParts", () => {
  it("reads path and host as URL does, for every serialized http(s) URL", () => {
    fc.assert(
      fc.property(raw, (text) => {
        let href: string;
        try {
          href = new URL(text).href;
        } catch {
          return; // not a URL at all: never a request's URL
        }
        expect(urlParts(href)).toEqual(viaUrl(href));
      }),
      { numRuns: 2000 },
    );
  });

  // workerd only: Node's Request refuses credentials in a URL and drops `cf` (the mutation run is plain Node).
  it.skipIf(!IN_WORKERD)("reads the URLs a request carries", () => {
    for (const text of [
      "http://127.0.0.1:8787/sharded/hot?x=1",
      "https://user:pw@API.Example.com:8443/v1/items?id=1#top",
      "http://[::1]:8787/a@b:c",
      "http://host/?",
      "http://host/p#frag?not-query",
      "http://host/a/./b/../c",
      "https://example.com",
    ]) {
      const href = new Request(text).url;
      expect(urlParts(href), href).toEqual(viaUrl(href));
    }
  });

  it("falls back to URL for what is not a serialized http(s) URL", () => {
    expect(urlParts("ws://Example.com/chat")).toEqual({ path: "/chat", host: "example.com" });
    expect(urlParts("http://EXAMPLE.com/x")).toEqual({ path: "/x", host: "example.com" });
    expect(urlParts("http://example.com?q")).toEqual({ path: "/", host: "example.com" });
  });
});
