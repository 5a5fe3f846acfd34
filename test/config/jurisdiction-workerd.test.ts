/**
 * COUNTERS_JURISDICTION (docs/operations.md, "Jurisdiction") in workerd,
 * which has no jurisdictions: a Worker set to one refuses with the
 * misconfigured 503 and says why in its log, rather than keep the counters
 * outside the jurisdiction or fail with a 500. Where the counters go on
 * Cloudflare (`COUNTERS.jurisdiction(j)`) is held by
 * test/config/platform-limits.node.test.ts.
 */
import { describe, expect, it, vi } from "vitest";
import { d, envoyApi } from "../support/envoy.ts";
import { uniqueIp } from "../support/app.ts";

const rules = { domain: "juris", descriptors: [{ key: "ip", rate_limit: { unit: "hour", requests_per_unit: 1 } }] };
const spend = (api: ReturnType<typeof envoyApi>) => api.json({ domain: "juris", descriptors: [d(["ip", uniqueIp()])] });

describe("COUNTERS_JURISDICTION in workerd", () => {
  it("is refused with the misconfigured 503, the log saying how to run locally", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const res = await spend(envoyApi(rules, { COUNTERS_JURISDICTION: "eu" }));
      expect([res.status, res.body.type]).toEqual([503, "urn:floodgate:misconfigured"]);
      const logged = errors.mock.calls.map((call) => String(call[0])).find((line) => line.includes("floodgate.misconfigured"));
      expect(JSON.parse(logged ?? "{}").error).toMatch(
        /^COUNTERS_JURISDICTION "eu" cannot be applied here \(.+\); unset it for local runs \(COUNTERS_JURISDICTION="" in \.dev\.vars\)$/,
      );
    } finally {
      errors.mockRestore();
    }
  });

  it("is refused the same way when unknown, and ignored when empty", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const res = await spend(envoyApi(rules, { COUNTERS_JURISDICTION: "mars" }));
      expect([res.status, res.body.type]).toEqual([503, "urn:floodgate:misconfigured"]);
    } finally {
      errors.mockRestore();
    }
    expect((await spend(envoyApi(rules, { COUNTERS_JURISDICTION: "" }))).status).toBe(200);
  });
});
