/**
 * src/http in plain Node (mutation testing, docs/testing.md): bearer
 * tokens, bounded bodies, header dialects, setting headers, problem+json
 * answers, deferred work, admin paths, the origin settings and forwarding
 * (the URL and headers an origin gets, fetch recorded), each against exact
 * values. The same paths through the gateway run in workerd
 * (test/gateway/forwarding.test.ts, test/security/).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { timingSafeEqual } from "node:crypto";
import { ADMIN_PREFIX, adminPath } from "../../src/http/admin-path.ts";
import { canonicalPath, decodedSlashes, foldPathCase } from "../../src/http/canonical-path.ts";
import { urlParts } from "../../src/http/url-parts.ts";
import { bearerToken, tokensEqual } from "../../src/http/bearer.ts";
import { BodyTooLargeError, readBodyBytes, readBodyText } from "../../src/http/body.ts";
import { deferFrom, deferOf } from "../../src/http/defer.ts";
import {
  FLOODGATE_HEADER_PREFIX,
  forwardHeaders,
  forwardOptions,
  forwardToOrigin,
  isDroppedHeader,
  isFloodgateHeader,
  upstreamHref,
  upstreamUrl,
} from "../../src/http/forward.ts";
import { DEFAULT_HEADER_DIALECT, HEADER_DIALECTS, isHeaderDialect } from "../../src/http/header-dialect.ts";
import { DECISION_HEADER, DELAY_HEADER, withHeaders } from "../../src/http/headers.ts";
import { METHOD_OVERRIDE_HEADERS } from "../../src/http/origin-settings.ts";
import { ConfigError, readSettings } from "../../src/config.ts";
import { originUnreachable, PROBLEM_TYPES, problem } from "../../src/http/problem.ts";
import { misconfigured } from "../../src/admission/refusal.ts";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("bearer", () => {
  it("reads the token of Authorization: Bearer, any case, spaces or tabs around it", () => {
    expect(bearerToken("Bearer abc")).toBe("abc");
    expect(bearerToken("bearer abc")).toBe("abc");
    expect(bearerToken("Bearer \t abc \t")).toBe("abc");
    for (const bad of [null, "", "Bearer", "Bearer ", "Basic abc", "Bearer a b", "xBearer abc", "Bearerabc", "Bearer abc\n"]) {
      expect(bearerToken(bad), String(bad)).toBeUndefined();
    }
  });

  it("compares tokens by their SHA-256 (workerd's timingSafeEqual, Node's here)", async () => {
    const subtle = crypto.subtle as SubtleCrypto & { timingSafeEqual?: (a: ArrayBuffer, b: ArrayBuffer) => boolean };
    const had = subtle.timingSafeEqual;
    // workerd has it (its node:crypto calls it); Node has only node:crypto's.
    const equal = had?.bind(subtle) ?? ((a: ArrayBuffer, b: ArrayBuffer) => timingSafeEqual(new Uint8Array(a), new Uint8Array(b)));
    const compared: number[] = [];
    subtle.timingSafeEqual = (a, b) => {
      compared.push(a.byteLength, b.byteLength);
      return equal(a, b);
    };
    try {
      expect(await tokensEqual("s3cret", "s3cret")).toBe(true);
      expect(await tokensEqual("s3cret", "s3creT")).toBe(false);
      expect(await tokensEqual("", "x")).toBe(false);
      // Always 32 bytes each, whatever the lengths given.
      expect(compared).toEqual([32, 32, 32, 32, 32, 32]);
    } finally {
      if (had === undefined) Reflect.deleteProperty(subtle, "timingSafeEqual");
      else subtle.timingSafeEqual = had;
    }
  });
});

describe("bounded bodies", () => {
  const streamed = (...chunks: string[]) =>
    new Request("http://x/", {
      method: "POST",
      body: new ReadableStream({
        start(controller) {
          for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
          controller.close();
        },
      }),
      duplex: "half",
    } as RequestInit);

  it("reads a body up to and including the bound, in order across chunks", async () => {
    expect(await readBodyText(new Request("http://x/", { method: "POST", body: "hello" }), 5)).toBe("hello");
    expect(await readBodyText(streamed("ab", "cd", "e"), 5)).toBe("abcde");
    expect([...(await readBodyBytes(streamed("\u0001", "\u0002\u0003"), 3))]).toEqual([1, 2, 3]);
    expect(await readBodyBytes(new Request("http://x/"), 0)).toEqual(new Uint8Array(0));
  });

  it("refuses a body past the bound, declared or streamed", async () => {
    const error = new BodyTooLargeError(4);
    expect([error.message, error.maxBytes]).toEqual(["the request body is larger than 4 bytes", 4]);
    await expect(readBodyText(new Request("http://x/", { method: "POST", body: "hello" }), 4)).rejects.toThrow(error);
    await expect(readBodyText(streamed("ab", "cd", "e"), 4)).rejects.toThrow(BodyTooLargeError);
    // A declared length past the bound is refused before reading; one within it is read.
    const declared = new Request("http://x/", { method: "POST", body: "hi", headers: { "content-length": "5" } });
    await expect(readBodyText(declared, 4)).rejects.toThrow("larger than 4 bytes");
    expect(await readBodyText(new Request("http://x/", { method: "POST", body: "hi", headers: { "content-length": "4" } }), 4)).toBe("hi");
  });
});

describe("headers", () => {
  it("names the dialects, draft-11 first and default", () => {
    expect(HEADER_DIALECTS).toEqual(["draft-11", "draft-7", "draft-6", "none"]);
    expect(DEFAULT_HEADER_DIALECT).toBe("draft-11");
    for (const d of HEADER_DIALECTS) expect(isHeaderDialect(d)).toBe(true);
    for (const bad of ["draft-8", "DRAFT-7", "", 7, undefined]) expect(isHeaderDialect(bad)).toBe(false);
  });

  it("sets headers in place when it can, on a copy when they are immutable", async () => {
    expect([DECISION_HEADER, DELAY_HEADER]).toEqual(["X-RateLimit-Decision", "X-RateLimit-Delay-Ms"]);
    const mutable = new Response("body", { status: 201 });
    expect(withHeaders(mutable, [])).toBe(mutable);
    expect(
      withHeaders(mutable, [
        ["a", "1"],
        ["b", "2"],
      ]),
    ).toBe(mutable);
    expect([mutable.headers.get("a"), mutable.headers.get("b")]).toEqual(["1", "2"]);
    const immutable = Response.redirect("http://x/", 302);
    const copy = withHeaders(immutable, [["a", "1"]]);
    expect(copy).not.toBe(immutable);
    expect([copy.status, copy.headers.get("location"), copy.headers.get("a")]).toEqual([302, "http://x/", "1"]);
    const frozen = new Response("kept");
    vi.spyOn(frozen.headers, "set").mockImplementation(() => {
      throw new RangeError("not a TypeError");
    });
    expect(() => withHeaders(frozen, [["a", "1"]])).toThrow(RangeError);
  });
});

describe("problem+json", () => {
  it("answers about:blank with title, status, detail and extensions", async () => {
    const response = problem(400, "Bad Request", "what", { field: "x" }, { "retry-after": "1" });
    expect(response.status).toBe(400);
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    expect(response.headers.get("retry-after")).toBe("1");
    expect(await response.json()).toEqual({ type: "about:blank", title: "Bad Request", status: 400, detail: "what", field: "x" });
    expect(await problem(404, "Not Found", "d").json()).toEqual({ type: "about:blank", title: "Not Found", status: 404, detail: "d" });
  });

  it("gives fixed 502 and 503 answers, the error to the log only", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const bad = originUnreachable(new Error("secret host"), { origin: "ORIGIN_URL" });
    expect(bad.status).toBe(502);
    expect(await bad.json()).toEqual({ type: PROBLEM_TYPES.originUnreachable, title: "Bad Gateway", status: 502, detail: "The origin could not be reached." });
    const down = misconfigured(new Error("X must be Y"));
    expect(down.status).toBe(503);
    expect(await down.json()).toEqual({
      type: "urn:floodgate:misconfigured",
      title: "Service Unavailable",
      status: 503,
      detail: "floodgate is misconfigured; the operator can find the reason in the Worker's log.",
    });
    misconfigured("plain text");
    expect(log.mock.calls.map((c) => JSON.parse(c[0] as string))).toEqual([
      { event: "floodgate.origin_unreachable", origin: "ORIGIN_URL", error: "Error: secret host" },
      { event: "floodgate.misconfigured", error: "X must be Y" },
      { event: "floodgate.misconfigured", error: "plain text" },
    ]);
    expect(PROBLEM_TYPES.countersUnreachable).toBe("urn:floodgate:counters-unreachable");
  });
});

describe("defer", () => {
  it("hands work to waitUntil, failures logged and swallowed; without a context, fire and forget", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const held: Promise<unknown>[] = [];
    const ctx = { waitUntil: (p: Promise<unknown>) => void held.push(p) } as unknown as ExecutionContext;
    deferFrom(ctx)(Promise.reject(new Error("boom")));
    expect(held).toHaveLength(1);
    await expect(held[0]).resolves.toBeUndefined();
    expect(log.mock.calls.map((c) => c[0])).toEqual([JSON.stringify({ event: "floodgate.background_failed", error: "Error: boom" })]);
    deferFrom(undefined)(Promise.reject(new Error("late")));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(log).toHaveBeenCalledTimes(2);
    const withCtx = {
      get executionCtx() {
        return ctx;
      },
    };
    deferOf(withCtx as never)(Promise.resolve(1));
    expect(held).toHaveLength(2);
    const without = {
      get executionCtx(): never {
        throw new Error("This context has no ExecutionContext");
      },
    };
    expect(() => deferOf(without as never)(Promise.resolve(1))).not.toThrow();
    expect(held).toHaveLength(2);
  });
});

describe("adminPath", () => {
  it("knows the admin prefix exactly, spelled otherwise, or not at all", () => {
    expect(ADMIN_PREFIX).toBe("/__ratelimit");
    expect(adminPath("http://gw/__ratelimit")).toBe("exact");
    expect(adminPath("http://gw/__ratelimit/metrics")).toBe("exact");
    expect(adminPath("http://gw/__ratelimit?x")).toBe("exact");
    expect(adminPath("http://gw/__ratelimit#x")).toBe("exact");
    expect(adminPath("http://gw/__ratelimitx")).toBe("none");
    expect(adminPath("http://gw/__RateLimit/metrics")).toBe("spelled");
    expect(adminPath("http://gw//__ratelimit/")).toBe("spelled");
    expect(adminPath("http://gw/%5F_ratelimit")).toBe("spelled");
    expect(adminPath("http://gw/x%2F__ratelimit")).toBe("none");
    expect(adminPath("http://gw/a/..%2F__ratelimit")).toBe("spelled");
    expect(adminPath("http://gw/x?/__RateLimit")).toBe("none");
    expect(adminPath("http://gw/x#/__RateLimit")).toBe("none");
    expect(adminPath("http://gw/x?%#/__RateLimit")).toBe("none");
    expect(adminPath("http://gw/x#_?/__RateLimit")).toBe("none");
    expect(adminPath("http://gw/x_y")).toBe("none");
    expect(adminPath("http://gw/x%41")).toBe("none");
    expect(adminPath("http://gw")).toBe("none");
    expect(adminPath("http://gw/__ratelimitX/")).toBe("none");
  });
});

describe("origin settings", () => {
  const methodOverride = (v: string | undefined) => readSettings({ METHOD_OVERRIDE: v }).methodOverride;
  const encodedSlashes = (v: string | undefined) => readSettings({ ENCODED_SLASHES: v }).encodedSlashes;

  it("reads METHOD_OVERRIDE and ENCODED_SLASHES by the settings table, trimmed and any case", () => {
    expect(METHOD_OVERRIDE_HEADERS).toEqual(["x-http-method-override", "x-http-method", "x-method-override"]);
    expect([undefined, "", " STRIP ", "strip"].map(methodOverride)).toEqual(["strip", "strip", "strip", "strip"]);
    expect(methodOverride(" Count")).toBe("count");
    expect(() => methodOverride("keep")).toThrow(new ConfigError('METHOD_OVERRIDE must be "strip" or "count", got "keep"'));
    expect([undefined, "", "Decode "].map(encodedSlashes)).toEqual(["decode", "decode", "decode"]);
    expect([encodedSlashes("KEEP"), encodedSlashes(" reject")]).toEqual(["keep", "reject"]);
    expect(() => encodedSlashes("drop")).toThrow(new ConfigError('ENCODED_SLASHES must be one of "decode", "keep", "reject", got "drop"'));
  });
});

describe("forwarding", () => {
  it("builds the upstream URL on the origin's host and prefix", () => {
    const origin = new URL("https://api.example.com/v1/");
    expect(upstreamUrl(origin, new URL("http://gw/users?id=1")).href).toBe("https://api.example.com/v1/users?id=1");
    expect(upstreamUrl(new URL("https://o.example:8443"), new URL("http://gw//evil.example/x")).href).toBe("https://o.example:8443//evil.example/x");
    expect(upstreamHref(origin, "http://gw/users?id=1")).toBe("https://api.example.com/v1/users?id=1");
    expect(upstreamHref(origin, "http://gw/users?id=1#frag")).toBe("https://api.example.com/v1/users?id=1");
    expect(upstreamHref(origin, "http://gw/users?")).toBe("https://api.example.com/v1/users");
    expect(upstreamHref(origin, "http://gw/a?b?")).toBe("https://api.example.com/v1/a?b?");
    expect(upstreamHref(origin, "http://gw/users#x?")).toBe("https://api.example.com/v1/users");
    expect(upstreamHref(origin, "http://gw")).toBe("https://api.example.com/v1/");
    expect(upstreamHref(new URL("https://o.example///"), "http://gw/x")).toBe("https://o.example/x");
    expect(upstreamHref(new URL("https://o.example"), "http://gw/")).toBe("https://o.example/");
  });

  it("names floodgate's own headers and the dropped ones in any spelling", () => {
    expect(FLOODGATE_HEADER_PREFIX).toBe("x-floodgate-");
    expect(isFloodgateHeader("X-Floodgate-Queued-Id")).toBe(true);
    expect(isFloodgateHeader("X_Floodgate_Queued_Id")).toBe(true);
    expect(isFloodgateHeader("X-RateLimit-Decision")).toBe(true);
    expect(isFloodgateHeader("x_ratelimit_delay_ms")).toBe(true);
    expect(isFloodgateHeader("X-Trace")).toBe(false);
    expect(isFloodgateHeader("x-floodgate")).toBe(false);
    expect(isDroppedHeader("x-floodgate-id")).toBe(true);
    expect(isDroppedHeader("x_floodgate_id")).toBe(true);
    expect(isDroppedHeader("x-ratelimit-delay-ms")).toBe(true);
    expect(isDroppedHeader("x-forwarded-host")).toBe(true);
    expect(isDroppedHeader("x_real_ip")).toBe(true);
    expect(isDroppedHeader("x-real-ip", { trustedProxyHeader: "x-real-ip" })).toBe(false);
    expect(isDroppedHeader("x_real_ip", { trustedProxyHeader: "x-real-ip" })).toBe(true);
    expect(isDroppedHeader("true-client-ip", { trustedProxyHeader: "x-real-ip" })).toBe(true);
    expect(isDroppedHeader("cf-connecting-ip")).toBe(false);
    expect(isDroppedHeader("cf_connecting_ip")).toBe(true);
    expect(isDroppedHeader("x_trace")).toBe(false);
    expect(isDroppedHeader("x-http-method-override")).toBe(true);
    expect(isDroppedHeader("x-http-method-override", { methodOverride: "strip" })).toBe(true);
    expect(isDroppedHeader("x_http_method", { methodOverride: "count" })).toBe(false);
    expect(isDroppedHeader("accept")).toBe(false);
  });

  it("makes the forwarding options once per settings object", () => {
    const settings = { methodOverride: "strip", trustedProxyHops: 1, trustedProxyHeader: "x-real-ip" } as const;
    expect(forwardOptions(settings)).toEqual({ methodOverride: "strip", trustedProxyHeader: "x-real-ip" });
    expect(forwardOptions(settings)).toBe(forwardOptions(settings));
    expect(forwardOptions({ methodOverride: "count", trustedProxyHops: 0, trustedProxyHeader: "x-real-ip" })).toEqual({ methodOverride: "count" });
  });

  it("drops hop-by-hop, Connection-named, Host and dropped headers, and keeps the client-address ones", () => {
    const headers = forwardHeaders(
      new Headers({
        connection: "x-trace, X-Real-IP, x-forwarded-for, , cf-connecting-ip, x-floodgate-id, keep-me-not",
        "x-trace": "1",
        "keep-me-not": "1",
        "x-forwarded-for": "192.0.2.1",
        "cf-connecting-ip": "192.0.2.1",
        "keep-alive": "5",
        te: "trailers",
        trailer: "x",
        "proxy-connection": "keep-alive",
        host: "gw",
        "x-forwarded-host": "evil.example",
        "x-http-method": "DELETE",
        accept: "text/html",
      }),
    );
    expect([...headers].sort()).toEqual([
      ["accept", "text/html"],
      ["cf-connecting-ip", "192.0.2.1"],
      ["x-forwarded-for", "192.0.2.1"],
    ]);
    const counted = forwardHeaders(new Headers({ "x-http-method": "DELETE", "x-real-ip": "p" }), { methodOverride: "count", trustedProxyHeader: "x-real-ip" });
    expect([...counted].sort()).toEqual([
      ["x-http-method", "DELETE"],
      ["x-real-ip", "p"],
    ]);
  });

  it("forwards to the origin: body for methods that have one, redirects not followed, headers cleaned only when needed", async () => {
    const calls: [string, RequestInit][] = [];
    vi.spyOn(globalThis, "fetch").mockImplementation(async (url, init) => {
      calls.push([String(url), init as RequestInit]);
      return new Response("ok");
    });
    const origin = new URL("https://o.example/base");
    const clean = new Request("http://gw/a?b=1", { headers: { accept: "x" } });
    await forwardToOrigin(clean, origin);
    expect(calls[0][0]).toBe("https://o.example/base/a?b=1");
    expect(calls[0][1]).toMatchObject({ method: "GET", body: undefined, redirect: "manual" });
    expect(calls[0][1].headers).toBe(clean.headers);
    const head = new Request("http://gw/a", { method: "HEAD" });
    await forwardToOrigin(head, origin);
    expect(calls[1][1]).toMatchObject({ method: "HEAD", body: undefined });
    const post = new Request("http://gw/p", { method: "POST", body: "x", headers: { "x-forwarded-host": "e" } });
    await forwardToOrigin(post, origin);
    expect(calls[2][1].method).toBe("POST");
    expect(calls[2][1].body).toBe(post.body);
    expect(calls[2][1].headers).not.toBe(post.headers);
    expect((calls[2][1].headers as Headers).has("x-forwarded-host")).toBe(false);
    for (const [name, value] of [
      ["connection", "close"],
      ["proxy-connection", "close"],
    ]) {
      const request = new Request("http://gw/", { headers: { [name]: value } });
      await forwardToOrigin(request, origin);
      expect(calls.at(-1)?.[1].headers).not.toBe(request.headers);
    }
    const trusted = new Request("http://gw/", { headers: { "x-real-ip": "p" } });
    await forwardToOrigin(trusted, origin, { trustedProxyHeader: "x-real-ip" });
    expect(calls.at(-1)?.[1].headers).toBe(trusted.headers);
  });
});

describe("canonicalPath at its exact edges", () => {
  it("reads what the fast path must hand to the slow one", () => {
    expect(canonicalPath("")).toBe("/");
    expect(canonicalPath("a")).toBe("/a");
    expect(canonicalPath("/a/")).toBe("/a");
    expect(canonicalPath("/a;x")).toBe("/a");
    expect(canonicalPath("/a b")).toBe("/a%20b");
    expect(canonicalPath("/a/..")).toBe("/");
    expect(canonicalPath("/\u0080")).toBe("/%C2%80");
    expect(canonicalPath("/\u00e9")).toBe("/%C3%A9");
    expect(canonicalPath("/\u{1F600}x")).toBe("/%F0%9F%98%80x");
  });

  it("reads a lone surrogate, at either end of the range, as U+FFFD", () => {
    expect(canonicalPath("/\ud800")).toBe("/%EF%BF%BD");
    expect(canonicalPath("/\udfff")).toBe("/%EF%BF%BD");
    expect(canonicalPath("/\ud7ff")).toBe("/%ED%9F%BF");
  });

  it("decodes unreserved escapes, keeps the others upper case, and escapes a % that starts none", () => {
    expect(canonicalPath("/%6Cogin")).toBe("/login");
    expect(canonicalPath("/%6cogin")).toBe("/login");
    expect(canonicalPath("/%2f%7e%30%41%5a%61%7a%2d%2e%5f")).toBe("/%2F~0AZaz-._");
    expect(canonicalPath("/%G1")).toBe("/%25G1");
    expect(canonicalPath("/%1G")).toBe("/%251G");
    expect(canonicalPath("/%zz")).toBe("/%25zz");
    expect(canonicalPath("/%4")).toBe("/%254");
    expect(canonicalPath("/%")).toBe("/%25");
    expect(canonicalPath("/%:0")).toBe("/%25:0");
    expect(canonicalPath("/%/0")).toBe("/%25/0");
    expect(canonicalPath("/%@0")).toBe("/%25@0");
    expect(canonicalPath("/%`0")).toBe("/%25%600");
    expect(canonicalPath("/%g0")).toBe("/%25g0");
  });

  it("folds letters but not escapes, and decodes escaped slashes", () => {
    expect(foldPathCase("/Login/%2F")).toBe("/login/%2F");
    expect(foldPathCase("/%2Fa")).toBe("/%2Fa");
    expect(foldPathCase("/AZ@[")).toBe("/az@[");
    expect(decodedSlashes("/api%2Flogin")).toBe("/api/login");
    expect(decodedSlashes("/a%5C..%5Cb")).toBe("/b");
    expect(decodedSlashes("/a%20b")).toBe("/a%20b");
  });
});

describe("urlParts off the fast path", () => {
  it("reads what a non-serialized authority means, as URL does", () => {
    expect(urlParts("http://@host/x")).toEqual({ path: "/x", host: "host" });
    expect(urlParts("http://u@host/x")).toEqual({ path: "/x", host: "host" });
    expect(urlParts("http://EXAMPLE.COM/x")).toEqual({ path: "/x", host: "example.com" });
    expect(urlParts("http://host?x/y")).toEqual({ path: "/", host: "host" });
    expect(urlParts("http://host#x/y")).toEqual({ path: "/", host: "host" });
    expect(urlParts("http://host\\x/y")).toEqual({ path: "/x/y", host: "host" });
    expect(urlParts("https://h:8443/a?b#c")).toEqual({ path: "/a", host: "h" });
    expect(urlParts("https://h/a#b?c")).toEqual({ path: "/a", host: "h" });
  });

  it("refuses what is no URL, as URL does", () => {
    for (const bad of ["http://:8080/x", "http://[/x", "http://[::1/x]"]) expect(() => urlParts(bad), bad).toThrow(TypeError);
  });
});
