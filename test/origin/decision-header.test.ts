/**
 * The origin is told (docs/rules.md, "Gradual and soft enforcement"): a
 * request forwarded past a limit reaches the origin with
 * `X-RateLimit-Decision` — `not-enforced` under `enforce_percent`, `soft`
 * under `soft_percent`, `shadow` for a shadow limit's would-be refusal —
 * and a client's own copy, in any spelling, never does; the client's
 * response carries `not-enforced` and `soft` too. Through the real gateway
 * to the test origin, which records what it got.
 */
import { describe, expect, it } from "vitest";
import { gateway, testEnv, uniqueIp } from "../support/app.ts";
import { originRecords, uniqueTag } from "../support/origin.ts";

function rulesWith(domain: string, limit: Record<string, unknown>, node: Record<string, unknown> = {}) {
  return {
    domain,
    descriptors: [{ key: "remote_address", ...node, rate_limit: { unit: "hour", requests_per_unit: 2, ...limit } }],
    routes: [{ match: {}, descriptors: [[{ key: "remote_address" }]] }],
  };
}

/** What the origin and the client saw for 4 requests from one address, each with a forged decision header. */
async function fourRequests(rules: unknown): Promise<{ origin: (string | undefined)[]; client: (string | null)[]; statuses: number[] }> {
  const call = gateway(rules, { ORIGIN_URL: testEnv.TEST_ORIGIN_URL });
  const ip = uniqueIp();
  const tag = uniqueTag("decision");
  const client: (string | null)[] = [];
  const statuses: number[] = [];
  for (let i = 0; i < 4; i += 1) {
    const forged: Record<string, string> = i % 2 === 0 ? { "X-RateLimit-Decision": "allowed" } : { X_RateLimit_Decision: "allowed" };
    const response = await call("/orders", { ip, headers: { ...forged, "x-test-tag": tag } });
    await response.arrayBuffer();
    statuses.push(response.status);
    client.push(response.headers.get("x-ratelimit-decision"));
  }
  const seen = await originRecords(tag);
  for (const record of seen) expect(record.headers.x_ratelimit_decision).toBeUndefined();
  return { origin: seen.map((r) => r.headers["x-ratelimit-decision"]), client, statuses };
}

describe("the origin is told of a decision that forwarded a request past a limit", () => {
  it("enforce_percent 0: the refusals past the limit reach the origin tagged not-enforced", async () => {
    const seen = await fourRequests(rulesWith("origin-told-ep", { enforce_percent: 0 }));
    expect(seen.statuses).toEqual([200, 200, 200, 200]);
    expect(seen.origin).toEqual([undefined, undefined, "not-enforced", "not-enforced"]);
    expect(seen.client).toEqual([null, null, "not-enforced", "not-enforced"]);
  });

  it("soft_percent: the requests over the limit as written, within the ceiling, reach the origin tagged soft", async () => {
    const seen = await fourRequests(rulesWith("origin-told-soft", { soft_percent: 50 }));
    expect(seen.statuses).toEqual([200, 200, 200, 429]);
    expect(seen.origin).toEqual([undefined, undefined, "soft"]);
    expect(seen.client).toEqual([null, null, "soft", null]);
  });

  it("a shadow limit's would-be refusals reach the origin tagged shadow", async () => {
    const seen = await fourRequests(rulesWith("origin-told-shadow", {}, { shadow_mode: true }));
    expect(seen.statuses).toEqual([200, 200, 200, 200]);
    expect(seen.origin).toEqual([undefined, undefined, "shadow", "shadow"]);
  });

  it("under SHADOW_MODE, too", async () => {
    const call = gateway(rulesWith("origin-told-shadow-all", {}), { ORIGIN_URL: testEnv.TEST_ORIGIN_URL, SHADOW_MODE: "true" });
    const ip = uniqueIp();
    const tag = uniqueTag("decision-all");
    for (let i = 0; i < 3; i += 1) expect((await call("/orders", { ip, headers: { "x-test-tag": tag } })).status).toBe(200);
    expect((await originRecords(tag)).map((r) => r.headers["x-ratelimit-decision"])).toEqual([undefined, undefined, "shadow"]);
  });
});
