/**
 * The origin's view, as an attacker tries it (docs/rules.md, "The origin's
 * view"): a limit is spent, then the same request is sent in a spelling the
 * origin acts on as the same thing. Each must be counted as one, through the
 * real gateway to the test origin.
 *
 * Breaks tried (each test failed, then the guard was put back):
 * - matchRoute without the HEAD-as-GET clause: HEAD after the GET limit got 200.
 * - originMethod ignoring METHOD_OVERRIDE=count: the overridden POST got 200.
 * - originPath returning the canonical path as is: "/api%2Flogin" got 200.
 * - originHost without the trailing-dot strip: "tenant.example.com." got 200.
 * - parseCookies without cookieValue: 'sid="X"' and "sid=%58" got 200.
 * - headerOf without the underscore spellings: "X_Api_Key" got 200.
 * - headerValue returning the value as is: "bearer T" got 200.
 * - boundedRequest without the full-value match: the long "*.png" got 200 twice.
 */
import { describe, expect, it } from "vitest";
import { gateway, testEnv, uniqueIp } from "../support/app.ts";
import { originRecords, uniqueTag } from "../support/origin.ts";

// One request an hour per key: the first spends the limit, the rest are the attacker's.
const hour = (requests_per_unit: number) => ({ unit: "hour", requests_per_unit });

const rules = {
  domain: "origin-view",
  descriptors: [
    { key: "get_items", rate_limit: hour(1) },
    { key: "delete_things", rate_limit: hour(1) },
    { key: "path", value: "/api/login", descriptors: [{ key: "remote_address", rate_limit: hour(1) }] },
    { key: "tenant", rate_limit: hour(1) },
    { key: "sid", rate_limit: hour(1) },
    { key: "api_key", rate_limit: hour(1) },
    { key: "bearer", rate_limit: hour(1) },
    { key: "image", value: "*.png", rate_limit: hour(1) },
  ],
  routes: [
    { match: { methods: ["GET"], path: "/items/*" }, descriptors: [[{ key: "get_items", header: "x-run" }]] },
    { match: { methods: ["DELETE"], path: "/things/*" }, descriptors: [[{ key: "delete_things", header: "x-run" }]] },
    { match: { methods: ["POST"], path: "/api/login" }, descriptors: [[{ key: "path" }, { key: "remote_address" }]] },
    { match: { host: "tenant.example.com", path: "/tenant" }, descriptors: [[{ key: "tenant", header: "x-tenant-run" }]] },
    { match: { path: "/session" }, descriptors: [[{ key: "sid", cookie: "sid" }]] },
    { match: { path: "/keyed" }, descriptors: [[{ key: "api_key", header: "x-api-key" }]] },
    { match: { path: "/token" }, descriptors: [[{ key: "bearer", header: "authorization" }]] },
    { match: { path: "/img/*" }, descriptors: [[{ key: "image", header: "x-file" }]] },
  ],
};

const call = gateway(rules, { ORIGIN_URL: testEnv.TEST_ORIGIN_URL });
const countCall = gateway(rules, { ORIGIN_URL: testEnv.TEST_ORIGIN_URL, METHOD_OVERRIDE: "count" });
const rejectCall = gateway(rules, { ORIGIN_URL: testEnv.TEST_ORIGIN_URL, ENCODED_SLASHES: "reject" });
const keepCall = gateway(rules, { ORIGIN_URL: testEnv.TEST_ORIGIN_URL, ENCODED_SLASHES: "keep" });

describe("method", () => {
  it("HEAD after a GET-only limit is spent is a 429: origins run the GET handler for it", async () => {
    const headers = { "x-run": uniqueTag("head") };
    expect((await call("/items/1", { headers })).status).toBe(200);
    expect((await call("/items/1", { headers, method: "HEAD" })).status).toBe(429);
  });

  it("METHOD_OVERRIDE=strip (default): the override header never reaches the origin", async () => {
    const tag = uniqueTag("override-strip");
    const res = await call("/things/1", {
      ip: uniqueIp(),
      method: "POST",
      headers: { "x-run": tag, "x-test-tag": tag, "X-HTTP-Method-Override": "DELETE", X_HTTP_Method: "DELETE", "x-method-override": "DELETE" },
    });
    expect(res.status).toBe(200);
    const [seen] = await originRecords(tag);
    expect(seen.method).toBe("POST");
    expect(Object.keys(seen.headers).filter((name) => /method/i.test(name))).toEqual([]);
  });

  it("METHOD_OVERRIDE=count: a POST naming DELETE is counted as DELETE (and passed on); two names that differ are a 400", async () => {
    const run = uniqueTag("count");
    expect((await countCall("/things/1", { method: "DELETE", headers: { "x-run": run } })).status).toBe(200);
    expect((await countCall("/things/1", { method: "POST", headers: { "x-run": run, "X-HTTP-Method-Override": "delete" } })).status).toBe(429);
    const tag = uniqueTag("override-count");
    const passed = await countCall("/things/2", { method: "POST", headers: { "x-run": tag, "x-test-tag": tag, "X-HTTP-Method-Override": "DELETE" } });
    expect(passed.status).toBe(200);
    expect((await originRecords(tag))[0].headers["x-http-method-override"]).toBe("DELETE");
    const both = await countCall("/things/3", {
      method: "POST",
      headers: { "x-run": uniqueTag("both"), "X-HTTP-Method-Override": "DELETE", "X-HTTP-Method": "PUT" },
    });
    expect(both.status).toBe(400);
  });
});

describe("path: encoded slashes", () => {
  it("ENCODED_SLASHES=decode (default): %2F, %5C and their lower-case forms are the slash an origin routes on", async () => {
    const ip = uniqueIp();
    expect((await call("/api/login", { ip, method: "POST" })).status).toBe(200);
    for (const path of ["/api%2Flogin", "/api%2flogin", "/api%5Clogin", "/api%2F%2Flogin", "/x%2F..%2Fapi/login"]) {
      expect((await call(path, { ip, method: "POST" })).status, path).toBe(429);
    }
  });

  it("ENCODED_SLASHES=reject: a path holding one is a 400; keep: it is another path", async () => {
    expect((await rejectCall("/api%2Flogin", { ip: uniqueIp(), method: "POST" })).status).toBe(400);
    const ip = uniqueIp();
    expect((await keepCall("/api/login", { ip, method: "POST" })).status).toBe(200);
    expect((await keepCall("/api%2Flogin", { ip, method: "POST" })).status).toBe(200);
  });
});

describe("host", () => {
  it("a trailing dot, letter case or a port do not skip a host-matched route", async () => {
    const run = uniqueTag("host");
    const headers = { "x-tenant-run": run };
    expect((await call("/tenant", { headers, base: "http://tenant.example.com" })).status).toBe(200);
    for (const base of ["http://tenant.example.com.", "http://TENANT.Example.COM", "http://tenant.example.com:8443", "http://tenant.example.com..:8443"]) {
      expect((await call("/tenant", { headers, base })).status, base).toBe(429);
    }
  });
});

describe("cookies", () => {
  it("a quoted or percent-encoded value is the same session, as frameworks read it", async () => {
    const sid = uniqueTag("S");
    expect((await call("/session", { headers: { cookie: `sid=${sid}` } })).status).toBe(200);
    const encoded = [...sid].map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, "0")}`).join("");
    for (const cookie of [`sid="${sid}"`, `sid=${encoded}`, `a=1; sid="${encoded}"`]) {
      expect((await call("/session", { headers: { cookie } })).status, cookie).toBe(429);
    }
  });
});

describe("headers", () => {
  it("a limited header sent twice reaches the origin as the one line the limit counted", async () => {
    const tag = uniqueTag("dup");
    const headers = new Headers({ "x-test-tag": tag });
    headers.append("X-Api-Key", "K1");
    headers.append("X-Api-Key", "junk");
    expect((await call("/keyed", { headers })).status).toBe(200);
    const [seen] = await originRecords(tag);
    const raw = (seen as unknown as { rawHeaders: string[] }).rawHeaders;
    const lines = raw.filter((_, i) => i % 2 === 0 && raw[i].toLowerCase() === "x-api-key").length;
    expect(lines).toBe(1);
    expect(seen.headers["x-api-key"]).toBe("K1, junk");
  });

  it("an underscore spelling of a limited header counts as it; two spellings that differ are a 400", async () => {
    const key = uniqueTag("K");
    expect((await call("/keyed", { headers: { "X-Api-Key": key } })).status).toBe(200);
    expect((await call("/keyed", { headers: { X_Api_Key: key } })).status).toBe(429);
    expect((await call("/keyed", { headers: { "x-api_key": key } })).status).toBe(429);
    expect((await call("/keyed", { headers: { "X-Api-Key": uniqueTag("other"), X_Api_Key: key } })).status).toBe(400);
  });

  it("the scheme of Authorization is compared without case", async () => {
    const token = uniqueTag("T");
    expect((await call("/token", { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    for (const auth of [`bearer ${token}`, `BEARER ${token}`, `Bearer \t ${token}`]) {
      expect((await call("/token", { headers: { authorization: auth } })).status, auth).toBe(429);
    }
  });
});

describe("long values", () => {
  it("a suffix wildcard matches a value over 256 bytes as it does a short one", async () => {
    const long = `${uniqueTag("f")}${"a".repeat(400)}.png`;
    expect((await call("/img/x", { headers: { "x-file": long } })).status).toBe(200);
    expect((await call("/img/x", { headers: { "x-file": long } })).status).toBe(429);
  });
});
