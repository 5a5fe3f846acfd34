/**
 * GET /__ratelimit/status on a route that declares a cost (docs/admin-api.md,
 * "Status"): the read spends nothing and reports what is left, not what
 * would be left after a request of that cost. Each algorithm, since each
 * reads its own `remaining` at cost 0.
 *
 * Break tried: the status read at the route's cost (the `costs` of
 * src/admin/quota-status.ts kept): it read [5], [0], [0] where 10 was left
 * (the finding's numbers), and every test failed.
 */
import { describe, expect, it } from "vitest";
import { gateway, uniqueIp } from "../support/app.ts";

const ALGORITHMS = ["fixed_window", "sliding_window_counter", "sliding_window_log", "token_bucket", "leaky_bucket", "gcra"] as const;

function costed(algorithm: (typeof ALGORITHMS)[number]) {
  return {
    domain: "cost",
    descriptors: [{ key: "remote_address", rate_limit: { name: algorithm, unit: "minute", requests_per_unit: 10, algorithm } }],
    routes: [{ match: { path: "/api/*" }, cost: 5, descriptors: [[{ key: "remote_address" }]] }],
  };
}

interface Policy {
  name: string;
  limit: number;
  remaining: number;
}

describe("status on a route with cost 5", () => {
  for (const algorithm of ALGORITHMS) {
    it(`${algorithm}: reads 10 left before any request, 5 after one, and spends nothing`, async () => {
      const call = gateway(costed(algorithm));
      const ip = uniqueIp();
      const read = async () => {
        const response = await call("/__ratelimit/status?method=GET&path=/api/x", { ip });
        expect(response.status).toBe(200);
        return (await response.json<{ policies: Policy[] }>()).policies.map((p) => p.remaining);
      };
      expect([await read(), await read(), await read()]).toEqual([[10], [10], [10]]);
      expect((await call("/api/x", { ip })).status).toBe(200);
      expect(await read()).toEqual([5]);
      expect((await call("/api/x", { ip })).status).toBe(200);
      expect(await read()).toEqual([0]);
    });
  }
});
