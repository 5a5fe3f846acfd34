// @ts-nocheck
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";

// The worker exactly as deployed: bundled rules.json, real bindings. The
// numbers come from the response headers, not from this test, so editing
// rules.json does not break it while the behaviour holds.
const worker = (exports as unknown as { default: Fetcher }).default;

describe("the deployed worker with the bundled rules.json", () => {
  it("shows rate-limit headers on GET / and answers 429 with Retry-After past the limit", async () => {
    const get = () => worker.fetch("http://127.0.0.1:8787/", { headers: { "cf-connecting-ip": "192.0.2.200" } });
    const first = await get();
    expect(first.status).toBe(200);
    const limit = Number(first.headers.get("X-RateLimit-Limit"));
    expect(limit).toBeGreaterThan(0);
    expect(Number(first.headers.get("X-RateLimit-Remaining"))).toBe(limit - 1);
    // Every policy that applied is listed, the one X-RateLimit-* speaks for first.
    expect(first.headers.get("RateLimit-Policy")).toMatch(new RegExp(`^"[^"]+";q=${limit};w=\\d+(, "[^"]+";q=\\d+;w=\\d+)*$`));
    expect(first.headers.get("RateLimit")).toMatch(new RegExp(`^"[^"]+";r=${limit - 1};t=\\d+(, "[^"]+";r=\\d+;t=\\d+)*$`));
    for (let i = 1; i < limit; i++) expect((await get()).status).toBe(200);
    const over = await get();
    expect(over.status).toBe(429);
    expect(Number(over.headers.get("Retry-After"))).toBeGreaterThan(0);
  });

  it("answers the health check", async () => {
    const res = await worker.fetch("http://127.0.0.1:8787/__ratelimit/healthcheck");
    expect(res.status).toBe(200);
  });
});
