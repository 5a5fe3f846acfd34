/**
 * Gradual and soft enforcement when the counters cannot be reached and
 * FAILURE_MODE=local decides in the isolate (docs/reliability.md, "Failure
 * mode"; docs/rules.md, "Gradual and soft enforcement"): a refusal that is
 * not enforced is still forwarded, tagged, and a soft limit's ceiling still
 * holds. Break tried: admittedHeaders marking these `local` (the tag lost).
 */
import { describe, expect, it, vi } from "vitest";
import { gateway } from "../support/app.ts";
import { throwingCounters } from "../support/failing.ts";

const rulesWith = (limit: Record<string, unknown>) => ({
  domain: "enforce-local",
  descriptors: [{ key: "user", rate_limit: { unit: "hour", requests_per_unit: 2, algorithm: "fixed_window", ...limit } }],
  routes: [{ match: { path: "/*" }, descriptors: [[{ key: "user", header: "x-user" }]] }],
});

async function decisions(limit: Record<string, unknown>, n: number): Promise<[number, string | null][]> {
  const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
  const call = gateway(rulesWith(limit), { COUNTERS: throwingCounters, FAILURE_MODE: "local" });
  const seen: [number, string | null][] = [];
  for (let i = 0; i < n; i++) {
    const res = await call("/x", { headers: { "x-user": "local-user" } });
    seen.push([res.status, res.headers.get("X-RateLimit-Decision")]);
  }
  errors.mockRestore();
  return seen;
}

describe("FAILURE_MODE=local with gradual and soft enforcement", () => {
  it("forwards a refusal enforce_percent 0 does not enforce, tagged not-enforced", async () => {
    expect(await decisions({ enforce_percent: 0 }, 4)).toEqual([
      [200, "local"],
      [200, "local"],
      [200, "not-enforced"],
      [200, "not-enforced"],
    ]);
  });

  it("holds a soft limit's ceiling (2 × 1.5 → 3), the last one tagged soft", async () => {
    expect(await decisions({ soft_percent: 50 }, 5)).toEqual([
      [200, "local"],
      [200, "local"],
      [200, "soft"],
      [429, "local"],
      [429, "local"],
    ]);
  });
});
