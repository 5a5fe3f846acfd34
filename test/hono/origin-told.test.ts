/**
 * The handlers after `rateLimit()` are the origin (docs/hono.md, "What the
 * handlers are told"): a request let past a limit reaches them with
 * `X-RateLimit-Decision` (`not-enforced` under `enforce_percent`, `soft`
 * under `soft_percent`, `shadow` for a shadow limit's would-be refusal),
 * as the gateway tells its origin, and a client's own copy, in any
 * spelling, never does.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/config.ts";
import { rateLimit } from "../../src/hono/middleware.ts";
import { compiled, testEnv, uniqueIp } from "../support/app.ts";

function rulesWith(domain: string, limit: Record<string, unknown>, node: Record<string, unknown> = {}) {
  return {
    domain,
    descriptors: [{ key: "remote_address", ...node, rate_limit: { unit: "hour", requests_per_unit: 2, ...limit } }],
    routes: [{ match: {}, descriptors: [[{ key: "remote_address" }]] }],
  };
}

/** What the handler read for 4 requests from one address, each with a forged decision header (two spellings, and the delay's). */
async function fourRequests(rules: unknown): Promise<{ statuses: number[]; told: unknown[] }> {
  const app = new Hono<{ Bindings: Env }>();
  app.use("*", rateLimit({ rules: compiled(rules) }));
  app.get("*", (c) =>
    c.json({
      decision: c.req.header("X-RateLimit-Decision") ?? null,
      forged: [...c.req.raw.headers.keys()].filter((name) => /^x[-_]ratelimit[-_](decision|delay[-_]ms)$/.test(name) && name !== "x-ratelimit-decision"),
    }),
  );
  const ip = uniqueIp();
  const statuses: number[] = [];
  const told: unknown[] = [];
  for (let i = 0; i < 4; i += 1) {
    const forged: Record<string, string> =
      i % 2 === 0 ? { "X-RateLimit-Decision": "allowed", "X-RateLimit-Delay-Ms": "0" } : { X_RateLimit_Decision: "allowed" };
    const ctx = createExecutionContext();
    const response = await app.fetch(new Request("http://app.test/orders", { headers: { "cf-connecting-ip": ip, ...forged } }), testEnv, ctx);
    await waitOnExecutionContext(ctx);
    statuses.push(response.status);
    if (response.status === 200) {
      const body = (await response.json()) as { decision: string | null; forged: string[] };
      expect(body.forged).toEqual([]);
      told.push(body.decision);
    } else await response.arrayBuffer();
  }
  return { statuses, told };
}

describe("the handlers after rateLimit() are told of a request let past a limit", () => {
  // Break tried: the middleware without toldRequest: the handler reads the client's "allowed" (all three fail).
  // Break tried: toldRequest dropping only the exact spelling (no `_` reading): X_RateLimit_Decision reaches the handler (all three fail).
  it("enforce_percent 0: not-enforced, and a client's own copy is removed", async () => {
    const seen = await fourRequests(rulesWith("hono-told-ep", { enforce_percent: 0 }));
    expect(seen.statuses).toEqual([200, 200, 200, 200]);
    expect(seen.told).toEqual([null, null, "not-enforced", "not-enforced"]);
  });

  it("soft_percent: soft within the ceiling", async () => {
    const seen = await fourRequests(rulesWith("hono-told-soft", { soft_percent: 50 }));
    expect(seen.statuses).toEqual([200, 200, 200, 429]);
    expect(seen.told).toEqual([null, null, "soft"]);
  });

  it("a shadow limit's would-be refusals: shadow", async () => {
    const seen = await fourRequests(rulesWith("hono-told-shadow", {}, { shadow_mode: true }));
    expect(seen.statuses).toEqual([200, 200, 200, 200]);
    expect(seen.told).toEqual([null, null, "shadow", "shadow"]);
  });
});
