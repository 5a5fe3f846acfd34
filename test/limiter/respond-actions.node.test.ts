/**
 * The headers and 429 of results other than a plain allow or refuse
 * (src/limiter/respond.ts, docs/headers.md and docs/on-limit.md): a queued
 * request (no Retry-After: it will be delivered), a delayed one (how long it
 * waited), a concurrency limit's 429, and the floors of Retry-After. Expected
 * texts written out by hand.
 */
import { describe, expect, it } from "vitest";
import type { Decision } from "../../src/algorithms/types.ts";
import { tooManyRequests } from "../../src/admission/quota-exceeded.ts";
import { rateLimitHeaders, retryAfterSeconds } from "../../src/limiter/respond.ts";
import { summarize } from "../../src/limiter/summarize.ts";
import type { PolicyOutcome, RateLimitResult } from "../../src/limiter/types.ts";

function outcome(name: string, decision: Partial<Decision>, extra: Partial<PolicyOutcome> = {}): PolicyOutcome {
  const full: Decision = { allowed: true, limit: 10, remaining: 4, resetAfterMs: 2_500, retryAfterMs: 0, effectiveWindowMs: 1, ...decision };
  return {
    domain: "d",
    descriptor: [
      { key: "user", value: "u" },
      { key: "plan", value: "p" },
    ],
    name,
    windowMs: 10_000,
    shadow: false,
    decision: full,
    ...extra,
  };
}
const refused = { allowed: false, remaining: 0, retryAfterMs: 4_200 };

describe("respond, beyond allow and refuse", () => {
  it("tells a queued request it was queued, with no Retry-After, in every dialect", () => {
    // Its quota resets in 9 s; a refused request would be told 5 (its retry) in RateLimit-Reset, a queued one is not.
    const queued = summarize([outcome("q", { ...refused, resetAfterMs: 9_000 }, { onLimit: "queue" })]);
    expect(queued.reason).toBe("queued");
    expect(rateLimitHeaders(queued, "draft-6")).toEqual([
      ["X-RateLimit-Limit", "10"],
      ["X-RateLimit-Remaining", "0"],
      ["X-RateLimit-Reset", "9"],
      ["RateLimit-Limit", "10"],
      ["RateLimit-Remaining", "0"],
      ["RateLimit-Reset", "9"],
      ["RateLimit-Policy", "10;w=10"],
      ["X-RateLimit-Decision", "queued"],
    ]);
    expect(rateLimitHeaders(queued, "none")).toEqual([["X-RateLimit-Decision", "queued"]]);
  });

  it("tells a delayed request how long it waited", () => {
    const delayed = summarize([outcome("d", {}, { onLimit: "delay", delayMs: 180 })]);
    expect(delayed).toMatchObject({ reason: "delayed", delayMs: 180, allowed: true });
    expect(rateLimitHeaders(delayed, "none")).toEqual([
      ["X-RateLimit-Decision", "delayed"],
      ["X-RateLimit-Delay-Ms", "180"],
    ]);
    expect(rateLimitHeaders(delayed, "draft-7")).toEqual([
      ["X-RateLimit-Limit", "10"],
      ["X-RateLimit-Remaining", "4"],
      ["X-RateLimit-Reset", "3"],
      ["RateLimit", "limit=10, remaining=4, reset=3"],
      ["RateLimit-Policy", "10;w=10"],
      ["X-RateLimit-Decision", "delayed"],
      ["X-RateLimit-Delay-Ms", "180"],
    ]);
  });

  it("sends no header when no limit applied, and Retry-After and X-RateLimit-Retry-After last on a refusal", () => {
    expect(rateLimitHeaders(summarize([]))).toEqual([]);
    const headers = rateLimitHeaders(summarize([outcome("r", refused)]), "draft-6");
    expect(headers.slice(-2)).toEqual([
      ["Retry-After", "5"],
      ["X-RateLimit-Retry-After", "5"],
    ]);
    expect(headers.slice(0, 3)).toEqual([
      ["X-RateLimit-Limit", "10"],
      ["X-RateLimit-Remaining", "0"],
      ["X-RateLimit-Reset", "5"],
    ]);
    expect(headers.find(([name]) => name === "RateLimit-Reset")).toEqual(["RateLimit-Reset", "5"]);
  });

  it("names a concurrency limit's rate as requests in flight, each key of the descriptor, and the policy", async () => {
    const slots = summarize([outcome("in-flight", { ...refused, limit: 2 }, { quotaUnit: "concurrent-requests" })]);
    expect(await tooManyRequests(slots).json()).toMatchObject({
      detail: "Rate limit exceeded for in-flight (user, plan): 2 requests in flight at once; retry in 5 s.",
      policy: "in-flight",
      limit: 2,
      remaining: 0,
      retry_after: 5,
    });
    // Requests in flight have no window: draft-11 leaves `w` out and names the unit.
    expect(new Map(rateLimitHeaders(slots)).get("RateLimit-Policy")).toBe('"in-flight";q=2;qu="concurrent-requests"');
    const requests = summarize([outcome("per-10s", refused, { quotaUnit: "requests" })]);
    expect(new Map(rateLimitHeaders(requests)).get("RateLimit-Policy")).toBe('"per-10s";q=10;w=10');
    const rate = summarize([outcome("per-10s", refused)]);
    expect((await tooManyRequests(rate).json<{ detail: string }>()).detail).toBe(
      "Rate limit exceeded for per-10s (user, plan): 10 requests per 10 s; retry in 5 s.",
    );
  });

  it("never tells a wait under 1 s, and without a policy falls back to 1 s", () => {
    const base: RateLimitResult = { allowed: false, reason: "limited", limit: 0, remaining: 0, resetAfterMs: 0, retryAfterMs: 0, policies: [] };
    expect(retryAfterSeconds(base)).toBe(1);
    expect(retryAfterSeconds({ ...base, retryAfterMs: Infinity })).toBe(1);
    expect(retryAfterSeconds({ ...base, retryAfterMs: Infinity, policy: outcome("w", {}) })).toBe(10);
    expect(retryAfterSeconds({ ...base, retryAfterMs: 10_001 })).toBe(11);
  });

  it("answers a 429 with no policy in general terms", async () => {
    const bare: RateLimitResult = { allowed: false, reason: "limited", limit: 0, remaining: 0, resetAfterMs: 0, retryAfterMs: 2_000, policies: [] };
    const response = tooManyRequests(bare);
    expect(await response.json()).toMatchObject({ detail: "Rate limit exceeded for rate limit: 0 requests per 0 s; retry in 2 s.", retry_after: 2 });
    expect(response.headers.get("Retry-After")).toBeNull();
  });
});
