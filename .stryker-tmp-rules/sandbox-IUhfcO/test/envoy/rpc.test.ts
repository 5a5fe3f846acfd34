// @ts-nocheck
// FloodgateRpc, the service-binding entrypoint, called as another Worker
// would: through the loopback binding of the deployed worker's export.
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { EnvoyResponse } from "../../src/envoy/response.ts";

interface Rpc {
  shouldRateLimit(request: unknown): Promise<EnvoyResponse>;
}
const rpc = (exports as unknown as { FloodgateRpc: Rpc }).FloodgateRpc;
const key = `rpc-${Date.now()}`;

describe("FloodgateRpc.shouldRateLimit", () => {
  it("decides with the bundled rules, answering /json's response object", async () => {
    const first = await rpc.shouldRateLimit({ domain: "api", descriptors: [{ entries: [{ key: "api_key", value: key }] }] });
    expect(first).toEqual({
      overallCode: "OK",
      statuses: [
        {
          code: "OK",
          currentLimit: { name: "per-key", requestsPerUnit: 1000, unit: "MINUTE" },
          limitRemaining: 999,
          durationUntilReset: expect.stringMatching(/^\d+s$/),
        },
      ],
    });
    const second = await rpc.shouldRateLimit({ domain: "api", descriptors: [{ entries: [{ key: "api_key", value: key }] }], hits_addend: 999 });
    expect(second.statuses[0].limitRemaining).toBeUndefined();
    const over = await rpc.shouldRateLimit({ domain: "api", descriptors: [{ entries: [{ key: "api_key", value: key }] }] });
    expect(over.overallCode).toBe("OVER_LIMIT");
  });

  it("answers OK with no limit for an unknown domain", async () => {
    expect(await rpc.shouldRateLimit({ domain: "elsewhere", descriptors: [{ entries: [{ key: "k", value: "v" }] }] })).toEqual({
      overallCode: "OK",
      statuses: [{ code: "OK" }],
    });
  });

  it("throws a TypeError naming the JSON path for a malformed request", async () => {
    // Settle the RPC promise here, so its rejection is handled where it arises.
    const failure = (request: unknown) =>
      rpc.shouldRateLimit(request).then(
        () => undefined,
        (error: Error) => error,
      );
    const typed = await failure({ domain: "api", descriptors: [{ entries: [{ key: 1 }] }] });
    expect(typed?.name).toBe("TypeError");
    expect(typed?.message).toBe("invalid RateLimitRequest: $.descriptors[0].entries[0].key: expected a string, got number");
    expect((await failure({ domain: "api" }))?.message).toMatch(/descriptor list must not be empty/);
  });
});

describe("the deployed worker's /json without ADMIN_TOKEN", () => {
  it("answers 404: the decision API exists only with a token", async () => {
    const worker = (exports as unknown as { default: Fetcher }).default;
    const res = await worker.fetch("http://127.0.0.1/__ratelimit/json", { method: "POST", body: "{}" });
    expect(res.status).toBe(404);
  });
});
