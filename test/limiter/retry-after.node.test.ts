// Retry-After (and X-RateLimit-Retry-After, and the 429 body's retry_after) is the
// exact retry-after rounded up to whole seconds (docs/headers.md, "Over the limit: 429"): never earlier
// than the first moment the same request would be allowed, and never a second later.
import { describe, expect, it } from "vitest";
import { tooManyRequests } from "../../src/admission/quota-exceeded.ts";
import { rateLimitHeaders } from "../../src/limiter/respond.ts";
import type { PolicyOutcome, RateLimitResult } from "../../src/limiter/types.ts";

const rejected = (retryAfterMs: number): RateLimitResult => {
  // A request of one hit refused with nothing left: it fits again exactly when one more would.
  const decision = { allowed: false, limit: 3, remaining: 0, resetAfterMs: retryAfterMs, retryAfterMs, effectiveWindowMs: retryAfterMs };
  const policy = { name: "p", windowMs: 60_000, descriptor: [{ key: "k", value: "v" }], shadow: false, decision } as unknown as PolicyOutcome;
  return { allowed: false, reason: "limited", limit: 3, remaining: 0, resetAfterMs: retryAfterMs, retryAfterMs, policy, policies: [policy] };
};

describe("Retry-After", () => {
  // [exact wait in ms, whole seconds]
  const cases: [number, number][] = [
    [1, 1],
    [999, 1],
    [1_000, 1],
    [1_001, 2],
    [1_999, 2],
    [2_000, 2],
    [59_001, 60],
    [3_600_000, 3_600],
    [3_600_001, 3_601],
  ];

  for (const [ms, secondsUp] of cases) {
    it(`${ms} ms is ${secondsUp} s in every place it is told`, async () => {
      const headers = new Map(rateLimitHeaders(rejected(ms)));
      expect(headers.get("Retry-After")).toBe(String(secondsUp));
      expect(headers.get("X-RateLimit-Retry-After")).toBe(String(secondsUp));
      // draft-11: Retry-After is not earlier than the end of the effective window.
      expect(headers.get("RateLimit")).toBe(`"p";r=0;t=${secondsUp}`);
      const response = tooManyRequests(rejected(ms));
      expect(response.headers.get("Retry-After")).toBe(String(secondsUp));
      expect((await response.json<{ retry_after: number }>()).retry_after).toBe(secondsUp);
    });
  }

  it("a request that can never fit is told the policy's window, whole seconds", () => {
    const headers = new Map(rateLimitHeaders(rejected(Infinity)));
    expect(headers.get("Retry-After")).toBe("60");
  });
});
