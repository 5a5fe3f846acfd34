// @ts-nocheck
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { upstreamHref, upstreamUrl } from "../../src/http/forward.ts";
import { gateway, testEnv, uniqueIp } from "../support/app.ts";

const rules = {
  domain: "gw-forwarding",
  descriptors: [{ key: "remote_address", rate_limit: { unit: "hour", requests_per_unit: 1000 } }],
  routes: [{ match: { path: "/*" }, descriptors: [[{ key: "remote_address" }]] }],
};

interface Seen {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
  bodyLength: number;
  chunks: number;
}

describe("forwarding allowed requests to ORIGIN_URL", () => {
  const call = gateway(rules, { ORIGIN_URL: testEnv.TEST_ORIGIN_URL });

  it("keeps method, path, query, headers and body, and returns the origin's response with rate-limit headers", async () => {
    const res = await call("/orders/42?expand=items&x=%20y", {
      method: "PUT",
      ip: uniqueIp(),
      headers: { "content-type": "application/json", "x-custom": "kept", authorization: "Bearer abc" },
      body: JSON.stringify({ qty: 2 }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-test-origin")).toBe("yes");
    expect(res.headers.get("set-cookie")).toBe("origin=1");
    expect(res.headers.get("X-RateLimit-Limit")).toBe("1000");
    const seen = await res.json<Seen>();
    expect(seen.method).toBe("PUT");
    expect(seen.url).toBe("/orders/42?expand=items&x=%20y");
    expect(seen.headers["x-custom"]).toBe("kept");
    expect(seen.headers.authorization).toBe("Bearer abc");
    expect(seen.headers["content-type"]).toBe("application/json");
    expect(seen.body).toBe('{"qty":2}');
  });

  it("streams a request body of unknown length instead of buffering it", async () => {
    const encoder = new TextEncoder();
    const parts = ["alpha,", "beta,", "gamma,", "delta"];
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const part = parts.shift();
        if (part === undefined) return controller.close();
        await new Promise((r) => setTimeout(r, 5));
        controller.enqueue(encoder.encode(part));
      },
    });
    const res = await call("/upload", { method: "POST", ip: uniqueIp(), body: stream, duplex: "half" } as RequestInit);
    const seen = await res.json<Seen>();
    expect(seen.body).toBe("alpha,beta,gamma,delta");
    // Buffering would have produced a fixed Content-Length; a stream arrives chunked.
    expect(seen.headers["transfer-encoding"]).toBe("chunked");
    expect(seen.headers["content-length"]).toBeUndefined();
  });

  it("passes origin status codes through untouched", async () => {
    const res = await call("/status/503", { ip: uniqueIp() });
    expect(res.status).toBe(503);
    expect(res.headers.get("X-RateLimit-Limit")).toBe("1000");
  });

  it("only ever talks to ORIGIN_URL, whatever Host or path the request names", async () => {
    const res = await call("//evil.example/steal?q=1", { ip: uniqueIp(), headers: { host: "evil.example" } });
    expect(res.headers.get("x-test-origin")).toBe("yes");
    const seen = await res.json<Seen>();
    expect(seen.url).toBe("//evil.example/steal?q=1");
    expect(seen.headers.host).toBe(new URL(testEnv.TEST_ORIGIN_URL).host);
  });

  it("ignores the host of an absolute-form request URL, keeping only path and query", () => {
    const origin = new URL("https://api.example.com/v1");
    expect(upstreamUrl(origin, new URL("http://evil.example:8080/steal?q=1")).href).toBe("https://api.example.com/v1/steal?q=1");
    expect(upstreamUrl(origin, new URL("http://gw.test//evil.example/x")).href).toBe("https://api.example.com/v1//evil.example/x");
  });

  it("builds the same upstream URL by string operations on the hot path as with the URL parser", () => {
    const origins = ["https://api.example.com/v1", "https://api.example.com/v1/", "http://127.0.0.1:8080", "http://[::1]:9/a/b//"].map((o) => new URL(o));
    const segment = fc.stringMatching(/^[A-Za-z0-9._~%!$&'()*+,;=:@-]{0,8}$/);
    fc.assert(
      fc.property(
        fc.constantFrom(...origins),
        fc.constantFrom("http://gw.test", "https://evil.example:8443", "http://[2001:db8::1]"),
        fc.array(segment, { maxLength: 4 }),
        fc.option(fc.stringMatching(/^[A-Za-z0-9=&%/?:@-]{0,12}$/)),
        (origin, host, segments, query) => {
          // As the runtime hands it over: parsed and normalized.
          const url = new URL(`${host}/${segments.join("/")}${query === null ? "" : `?${query}`}`).href;
          expect(upstreamHref(origin, url)).toBe(upstreamUrl(origin, new URL(url)).href);
        },
      ),
      { seed: 20261122, numRuns: 500 },
    );
  });

  it("drops hop-by-hop headers, including those named in Connection", async () => {
    const res = await call("/hop", { ip: uniqueIp(), headers: { connection: "x-hop", "x-hop": "1", "keep-alive": "timeout=5", "x-end": "2" } });
    const seen = await res.json<Seen>();
    expect(seen.headers["x-hop"]).toBeUndefined();
    expect(seen.headers["keep-alive"]).toBeUndefined();
    expect(seen.headers["x-end"]).toBe("2");
  });

  it("never forwards hop-by-hop fields or the client's Host, also when no Connection header names any", async () => {
    const res = await call("/hop", {
      ip: uniqueIp(),
      headers: { "keep-alive": "timeout=5", te: "trailers", trailer: "x-t", "proxy-connection": "keep-alive", host: "evil.example", "x-end": "2" },
    });
    const seen = await res.json<Seen>();
    for (const name of ["keep-alive", "te", "trailer", "proxy-connection"]) expect(seen.headers[name], name).toBeUndefined();
    expect(seen.headers.host).toBe(new URL(testEnv.TEST_ORIGIN_URL).host);
    expect(seen.headers["x-end"]).toBe("2");
    const plain = await (await call("/hop", { ip: uniqueIp(), headers: { "keep-alive": "timeout=5", te: "trailers", "x-end": "3" } })).json<Seen>();
    expect(plain.headers["keep-alive"]).toBeUndefined();
    expect(plain.headers.te).toBeUndefined();
    expect(plain.headers["x-end"]).toBe("3");
  });

  it("passes an origin's redirect back to the client instead of following it", async () => {
    for (const status of [301, 302, 307, 308]) {
      const res = await call(`/status/${status}`, { ip: uniqueIp(), redirect: "follow" });
      expect(res.status).toBe(status);
      expect(res.headers.get("location")).toBe("/landed");
      expect(res.headers.get("X-RateLimit-Limit")).not.toBeNull();
    }
  });

  it("answers 502 problem+json when the origin cannot be reached", async () => {
    const down = gateway(rules, { ORIGIN_URL: "http://127.0.0.1:9" });
    const res = await down("/x", { ip: uniqueIp() });
    expect(res.status).toBe(502);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
  });

  it("answers 503 problem+json, not 500, when ORIGIN_URL is not a URL", async () => {
    const broken = gateway(rules, { ORIGIN_URL: "ftp://nope" });
    const res = await broken("/x", { ip: uniqueIp() });
    expect(res.status).toBe(503);
    expect((await res.json<{ detail: string }>()).detail).toMatch(/ORIGIN_URL/);
  });
});
