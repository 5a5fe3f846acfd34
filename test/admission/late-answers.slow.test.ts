/**
 * Late answers (docs/reliability.md, "Late answers"): a call that misses
 * DECISION_TIMEOUT_MS is decided in the isolate, and still reaches its
 * object later, which applies it. The local decision and the late charge
 * reconcile: the hit is counted once, and nothing is let through past the
 * limit.
 */
import { describe, expect, it, vi } from "vitest";
import { gateway, uniqueIp } from "../support/app.ts";
import { auth, TOKEN } from "../support/envoy.ts";
import { lateCounters } from "../support/late-counters.ts";

const LIMIT = 50;
const rules = {
  domain: "late-answers",
  descriptors: [{ key: "remote_address", rate_limit: { unit: "hour", requests_per_unit: LIMIT, algorithm: "sliding_window_log" } }],
  routes: [{ match: { path: "/*" }, descriptors: [[{ key: "remote_address" }]] }],
};

type Call = ReturnType<typeof gateway>;

/** `n` requests, `inFlight` at a time; the statuses in order of sending. */
async function inFlights(call: Call, ip: string, n: number, inFlight: number): Promise<string[]> {
  const statuses: string[] = new Array(n);
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const i = next++;
      const res = await call("/x", { ip });
      statuses[i] = `${res.status} ${res.headers.get("X-RateLimit-Decision") ?? "object"}`;
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return statuses;
}

async function remaining(call: Call, ip: string): Promise<number> {
  const res = await call(`/__ratelimit/counters?domain=late-answers&descriptor=remote_address=${ip}`, { headers: auth });
  const body = await res.json<{ limits: { remaining: number }[] }>();
  return body.limits[0].remaining;
}

describe('late answers (docs/reliability.md, "Late answers")', () => {
  it("30 % of calls applied after the default timeout: a limit of 50 allows 45-50 of 300, and the object's remaining never climbs back", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const ip = uniqueIp();
    const late = lateCounters(0.3, 1_300);
    // The default DECISION_TIMEOUT_MS (1000): every late call times out first.
    const call = gateway(rules, { ADMIN_TOKEN: TOKEN, COUNTERS: late.counters });
    const statuses = await inFlights(call, ip, 300, 10);
    errors.mockRestore();
    const allowed = statuses.filter((s) => s.startsWith("200")).length;
    const kinds: Record<string, number> = {};
    for (const s of statuses) kinds[s] = (kinds[s] ?? 0) + 1;
    const lateCalls = late.calls.filter((c) => c.late).length;
    // Every late call reaches its object (some after their requests were answered) before the object is read.
    for (let waited = 0; late.landed() < lateCalls && waited < 10_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    const left = await remaining(gateway(rules, { ADMIN_TOKEN: TOKEN }), ip);
    console.log(
      `late answers: ${allowed} of 300 allowed (${JSON.stringify(kinds)}), ${lateCalls} of ${late.calls.length} calls late, the object's remaining ${left}`,
    );
    // Calls timed out and were decided here (coalescing and the block cache leave a few dozen object calls in all).
    expect(lateCalls).toBeGreaterThanOrEqual(3);
    expect(statuses.filter((s) => s.endsWith("local")).length).toBeGreaterThanOrEqual(3);
    expect(late.landed()).toBe(lateCalls);
    expect(allowed).toBeLessThanOrEqual(LIMIT);
    expect(allowed).toBeGreaterThanOrEqual(45);
    expect(left).toBe(0);
  });
});
