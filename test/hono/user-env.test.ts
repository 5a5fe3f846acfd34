/**
 * A `rateLimit()` middleware reads only what its own options name: an app
 * whose env holds floodgate's variable names (FAILURE_MODE, SHADOW_MODE,
 * RATELIMIT_HEADERS, SAMPLE_*, METHOD_OVERRIDE, ENCODED_SLASHES, …, some
 * invalid) and bindings (QUEUE, QUEUED) gets the very answers of an app
 * whose env holds only its counters (docs/operations.md, "Configuration").
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { rateLimit } from "../../src/hono/middleware.ts";
import { compiled, testEnv, uniqueIp } from "../support/app.ts";

const rules = compiled({
  domain: "hono-user-env",
  descriptors: [
    { key: "remote_address", rate_limit: { unit: "hour", requests_per_unit: 2, name: "per-ip" } },
    {
      key: "tier",
      value: "queued",
      descriptors: [{ key: "remote_address", rate_limit: { unit: "hour", requests_per_unit: 1, name: "queued", on_limit: "queue" } }],
    },
  ],
  routes: [
    { match: { path: "/queued" }, descriptors: [[{ key: "tier", value: "queued" }, { key: "remote_address" }]] },
    { match: { path: "/*" }, descriptors: [[{ key: "remote_address" }]] },
  ],
});

// Every floodgate variable, each set to a value that would change an answer (or, read, fail).
const FLOODGATE_VARS = {
  FAILURE_MODE: "closed",
  DECISION_TIMEOUT_MS: "not a number",
  SHADOW_MODE: "true",
  RATELIMIT_HEADERS: "none",
  TRUSTED_PROXY_HOPS: "1",
  TRUSTED_PROXY_HEADER: "x-real-ip",
  METHOD_OVERRIDE: "count",
  ENCODED_SLASHES: "reject",
  SAMPLE_KEY_RATE: "bogus",
  SAMPLE_MAX_ROWS: "-1",
  SAMPLE_RETENTION_HOURS: "0",
  METRICS_FLUSH_MS: "99999999",
  COUNTERS_JURISDICTION: "mars",
  QUEUE_SECRET: "short",
  ORIGIN_URL: "ftp://nowhere",
};

async function answers(env: object): Promise<string[]> {
  const app = new Hono();
  app.use("*", rateLimit({ rules }));
  app.all("*", (c) => c.text("handled"));
  const ip = uniqueIp();
  const seen: string[] = [];
  const asks: [string, RequestInit][] = [
    ["/a", {}],
    ["/a%2Fb", { method: "POST", headers: { "x-http-method-override": "DELETE", "x-real-ip": "192.0.2.1" } }],
    ["/a", {}],
    ["/a", {}],
    ["/queued", { method: "POST", body: "x" }],
    ["/queued", { method: "POST", body: "x" }],
  ];
  for (const [path, init] of asks) {
    const ctx = createExecutionContext();
    const headers = new Headers(init.headers);
    headers.set("cf-connecting-ip", ip);
    const response = await app.fetch(new Request(`http://app.test${path}`, { ...init, headers }), env, ctx);
    await waitOnExecutionContext(ctx);
    const fields = [...response.headers].filter(([name]) => name !== "date").map(([name, value]) => `${name}: ${value}`);
    // Seconds to a reset follow the real clock of the objects: masked, the rest compared exactly.
    seen.push(`${response.status} ${`${fields.join("; ")} ${await response.text()}`.replace(/\b\d{3,}\b/g, "N")}`);
  }
  return seen;
}

describe("rateLimit() and the app's own env", () => {
  it("floodgate's variable and binding names in the app's env change nothing", async () => {
    const clean = await answers({ COUNTERS: testEnv.COUNTERS });
    expect(clean.map((answer) => answer.slice(0, 3))).toEqual(["200", "200", "429", "429", "200", "429"]);
    expect(clean[2]).toContain("x-ratelimit-remaining: 0");
    const crowded = await answers({ ...testEnv, ...FLOODGATE_VARS });
    // Each run has an address of its own, so both start afresh.
    expect(crowded).toEqual(clean);
  });
});
