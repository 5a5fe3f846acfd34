/**
 * Edges of src/http a client or an operator can reach, in plain Node: an
 * escaped spelling of `/__ratelimit` beside a query or fragment (never
 * forwarded, docs/rules.md "The origin's view"), the decision header the
 * origin gets (and the caller's request left as it was), ORIGIN_URL's path
 * prefix with several trailing slashes, and which hostnames have a route
 * origin (docs/operations.md, "Configuration": ORIGIN_URL).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { adminPath } from "../../src/http/admin-path.ts";
import { forwardToOrigin, upstreamUrl } from "../../src/http/forward.ts";
import { hasRouteOrigin } from "../../src/http/origin-host.ts";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("adminPath: escaped spellings beside a query or a fragment", () => {
  it.each([
    ["http://gw/__ratelimi%74?x=1", "spelled"],
    ["http://gw/__ratelimi%74#top", "spelled"],
    ["http://gw/__ratelimi%74?x=1#top", "spelled"],
    ["http://gw/__ratelimi%74#top?x=1", "spelled"],
    ["http://gw/__ratelimi%74/json?a=b", "spelled"],
    ["http://gw/%5F%5Fratelimit/json", "spelled"],
    ["http://gw/%5f%5fRATELIMIT", "spelled"],
    ["http://gw/%5F%5Fratelimits", "none"],
    ["http://gw/api?next=/__ratelimit", "none"],
    ["http://gw/api#/__ratelimit", "none"],
    ["http://gw/api%2F..%2F__ratelimit", "spelled"],
  ] as const)("%s is %s", (url, expected) => {
    expect(adminPath(url)).toBe(expected);
  });
});

describe("forwardToOrigin and the decision header", () => {
  function recordFetch() {
    const sent: Headers[] = [];
    vi.spyOn(globalThis, "fetch").mockImplementation(async (_url, init) => {
      sent.push(new Headers((init as RequestInit).headers));
      return new Response("ok");
    });
    return sent;
  }

  it("with a decision, the origin gets it in place of the client's copy; the caller's request is left as it was", async () => {
    const sent = recordFetch();
    const request = new Request("http://gw/a", { headers: { accept: "x", "x-ratelimit-decision": "forged" } });
    await forwardToOrigin(request, new URL("https://o.example"), {}, "soft");
    expect(sent[0].get("x-ratelimit-decision")).toBe("soft");
    expect(sent[0].get("accept")).toBe("x");
    expect(request.headers.get("x-ratelimit-decision")).toBe("forged");
    const clean = new Request("http://gw/a", { headers: { accept: "x" } });
    await forwardToOrigin(clean, new URL("https://o.example"), {}, "delayed");
    expect(sent[1].get("x-ratelimit-decision")).toBe("delayed");
    expect(clean.headers.has("x-ratelimit-decision")).toBe(false);
  });

  it("without one, the origin gets no decision header at all", async () => {
    const sent = recordFetch();
    await forwardToOrigin(new Request("http://gw/a", { headers: { accept: "x" } }), new URL("https://o.example"));
    await forwardToOrigin(new Request("http://gw/a", { headers: { "x-ratelimit-decision": "forged" } }), new URL("https://o.example"));
    expect(sent.map((headers) => headers.has("x-ratelimit-decision"))).toEqual([false, false]);
  });
});

describe("upstreamUrl", () => {
  it("drops every trailing slash of ORIGIN_URL's path before the request's path", () => {
    expect(upstreamUrl(new URL("https://o.example/v1//"), new URL("http://gw/x?y=1")).href).toBe("https://o.example/v1/x?y=1");
    expect(upstreamUrl(new URL("https://o.example/v1/"), new URL("http://gw/x")).href).toBe("https://o.example/v1/x");
  });
});

describe("hasRouteOrigin", () => {
  it.each([
    ["api.example.com", true],
    ["api.example.com.", true],
    ["api.v2", true],
    ["cdn.host9", true],
    ["api.test", false],
    ["api.test.", false],
    ["home.arpa", false],
    ["x.home.arpa", false],
    ["printer.local.", false],
    ["[::ffff:192.0.2.1]", false],
    ["192.0.2.1", false],
    ["localhost.", false],
  ] as const)("%s: %s", (hostname, expected) => {
    expect(hasRouteOrigin(hostname)).toBe(expected);
  });
});
