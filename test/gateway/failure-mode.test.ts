import { describe, expect, it } from "vitest";
import type { Env } from "../../src/env.ts";
import { gateway, uniqueIp } from "../support/app.ts";

const rules = {
  domain: "gw-failure",
  descriptors: [{ key: "remote_address", rate_limit: { unit: "minute", requests_per_unit: 5 } }],
  routes: [{ match: { path: "/*" }, descriptors: [[{ key: "remote_address" }]] }],
};

// Fault injection: a namespace whose objects never answer, or fail.
function brokenCounters(fault: "hang" | "throw"): Env["COUNTERS"] {
  const stub = {
    decide: () => (fault === "hang" ? new Promise(() => {}) : Promise.reject(new Error("object exploded"))),
  };
  return { getByName: () => stub } as unknown as Env["COUNTERS"];
}

describe("FAILURE_MODE when counters cannot be reached (SPEC section 2)", () => {
  it("open: lets the request through, marked as undecided, after DECISION_TIMEOUT_MS", async () => {
    const call = gateway(rules, { COUNTERS: brokenCounters("hang"), FAILURE_MODE: "open", DECISION_TIMEOUT_MS: "50" });
    const started = Date.now();
    const res = await call("/x", { ip: uniqueIp() });
    const took = Date.now() - started;
    expect(res.status).toBe(200);
    expect(res.headers.get("X-RateLimit-Decision")).toBe("failure-open");
    expect(took).toBeGreaterThanOrEqual(45);
    expect(took).toBeLessThan(5_000);
  });

  it("closed: answers 503 with Retry-After when the object throws", async () => {
    const call = gateway(rules, { COUNTERS: brokenCounters("throw"), FAILURE_MODE: "closed" });
    const res = await call("/x", { ip: uniqueIp() });
    expect(res.status).toBe(503);
    expect(res.headers.get("Retry-After")).toBe("1");
    expect(res.headers.get("content-type")).toBe("application/problem+json");
  });

  it("rejects an unknown FAILURE_MODE with a clear 503, not a 500", async () => {
    const call = gateway(rules, { FAILURE_MODE: "sometimes" });
    const res = await call("/x", { ip: uniqueIp() });
    expect(res.status).toBe(503);
    expect((await res.json<{ detail: string }>()).detail).toMatch(/FAILURE_MODE must be "open" or "closed"/);
  });
});
