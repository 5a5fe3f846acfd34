// The four header dialects for one and the same result (docs/headers.md), the
// draft-11 listing order, and the 429's quota-exceeded body. Expected texts are
// written out by hand from the drafts.
import { describe, expect, it } from "vitest";
import type { Decision } from "../../src/algorithms/types.ts";
import { tooManyRequests } from "../../src/admission/quota-exceeded.ts";
import { rateLimitHeaders } from "../../src/limiter/respond.ts";
import { summarize } from "../../src/limiter/summarize.ts";
import type { PolicyOutcome } from "../../src/limiter/types.ts";

function outcome(name: string, windowMs: number, decision: Partial<Decision>, shadow = false): PolicyOutcome {
  const full: Decision = { allowed: true, limit: 10, remaining: 0, resetAfterMs: 0, retryAfterMs: 0, effectiveWindowMs: 1, ...decision };
  return { domain: "d", descriptor: [{ key: "remote_address", value: "192.0.2.1" }], name, windowMs, shadow, decision: full };
}

// 10 per second, spent; 100 per minute, 42 left; a shadow trial limit that is never shown.
const perSecond = outcome("per-ip-1s", 1_000, { limit: 10, remaining: 0, resetAfterMs: 800, effectiveWindowMs: 100 });
const perMinute = outcome("per-ip-1m", 60_000, { limit: 100, remaining: 42, resetAfterMs: 30_500, effectiveWindowMs: 16_200 });
const trial = outcome("trial", 3_600_000, { allowed: false, limit: 1, remaining: 0, retryAfterMs: 90_000 }, true);
const allowed = summarize([perMinute, trial, perSecond]);

const headersOf = (result = allowed, dialect?: Parameters<typeof rateLimitHeaders>[1]) => Object.fromEntries(rateLimitHeaders(result, dialect));

describe("rate-limit header dialects, one allowed result", () => {
  const xRateLimit = { "X-RateLimit-Limit": "10", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1" };

  it("draft-11 (the default) lists every enforcing policy, most restrictive first, in both fields", () => {
    const expected = {
      ...xRateLimit,
      "RateLimit-Policy": '"per-ip-1s";q=10;w=1, "per-ip-1m";q=100;w=60',
      RateLimit: '"per-ip-1s";r=0;t=1, "per-ip-1m";r=42;t=17',
    };
    expect(headersOf(allowed, "draft-11")).toEqual(expected);
    expect(headersOf(allowed)).toEqual(expected);
  });

  it("draft-7 sends one combined RateLimit and the policy, for the most restrictive policy", () => {
    expect(headersOf(allowed, "draft-7")).toEqual({ ...xRateLimit, RateLimit: "limit=10, remaining=0, reset=1", "RateLimit-Policy": "10;w=1" });
  });

  it("draft-6 sends RateLimit-Limit, -Remaining, -Reset and the policy", () => {
    expect(headersOf(allowed, "draft-6")).toEqual({
      ...xRateLimit,
      "RateLimit-Limit": "10",
      "RateLimit-Remaining": "0",
      "RateLimit-Reset": "1",
      "RateLimit-Policy": "10;w=1",
    });
  });

  it("none sends nothing on an allowed request", () => {
    expect(rateLimitHeaders(allowed, "none")).toEqual([]);
  });

  it("a single policy is one item; a name is an escaped sf-string", () => {
    const odd = outcome('say "hi" \\ bye', 60_000, { limit: 5, remaining: 4, effectiveWindowMs: 59_001 });
    expect(headersOf(summarize([odd]))).toMatchObject({
      "RateLimit-Policy": '"say \\"hi\\" \\\\ bye";q=5;w=60',
      RateLimit: '"say \\"hi\\" \\\\ bye";r=4;t=60',
    });
  });

  it("a limit of 0 frees nothing: its t is its window", () => {
    const never = outcome("never", 3_600_000, { allowed: false, limit: 0, remaining: 0, retryAfterMs: Infinity, effectiveWindowMs: Infinity });
    expect(headersOf(summarize([never]))).toMatchObject({ RateLimit: '"never";r=0;t=3600', "Retry-After": "3600" });
  });

  it("a unit other than requests is shown as qu", () => {
    const bytes = { ...outcome("upload", 60_000, { limit: 65_535, remaining: 100 }), quotaUnit: "content-bytes" as const };
    expect(headersOf(summarize([bytes]))["RateLimit-Policy"]).toBe('"upload";q=65535;qu="content-bytes";w=60');
  });
});

/** draft-7's RateLimit as ratelimit-header-parser reads it: a dictionary of integers; used = limit − remaining; reset seconds from now. */
function draft7Reading(value: string): { limit: number; used: number; remaining: number; resetSeconds: number } {
  const members = new Map(value.split(",").map((m) => m.trim().split("=") as [string, string]));
  const limit = Number.parseInt(members.get("limit") ?? "", 10);
  const remaining = Number.parseInt(members.get("remaining") ?? "", 10);
  return { limit, used: limit - remaining, remaining, resetSeconds: Number.parseInt(members.get("reset") ?? "", 10) };
}

describe("draft-7, as ratelimit-header-parser reads it", () => {
  it("reads the limit, the used and remaining quota and the reset", () => {
    const field = headersOf(summarize([perMinute]), "draft-7").RateLimit;
    // 100 per minute, 42 left: 58 used; the reset 30.5 s away, rounded up.
    expect(draft7Reading(field)).toEqual({ limit: 100, used: 58, remaining: 42, resetSeconds: 31 });
  });
});

describe("the 429", () => {
  const spent = outcome("per-ip-1s", 1_000, { allowed: false, limit: 10, remaining: 0, resetAfterMs: 800, retryAfterMs: 2_500, effectiveWindowMs: 100 });
  const alsoSpent = outcome("per-ip-1m", 60_000, {
    allowed: false,
    limit: 100,
    remaining: 3,
    resetAfterMs: 30_500,
    retryAfterMs: 30_000,
    effectiveWindowMs: 16_200,
  });

  it("is draft-11's quota-exceeded problem naming the policies that refused it, the longest wait first", async () => {
    const response = tooManyRequests(summarize([perMinute, spent, trial]));
    expect(response.status).toBe(429);
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    expect(await response.json()).toEqual({
      type: "https://iana.org/assignments/http-problem-types#quota-exceeded",
      title: "Too Many Requests",
      status: 429,
      detail: "Rate limit exceeded for per-ip-1s (remote_address): 10 requests per 1 s; retry in 3 s.",
      "violated-policies": ["per-ip-1s"],
      retry_after: 3,
      policy: "per-ip-1s",
      limit: 10,
      remaining: 0,
    });
    const both = await tooManyRequests(summarize([spent, alsoSpent])).json<Record<string, unknown>>();
    expect(both["violated-policies"]).toEqual(["per-ip-1m", "per-ip-1s"]);
  });

  it("lists the refusing policies first in draft-11, each with its own r and t", () => {
    const headers = headersOf(summarize([perMinute, spent]));
    expect(headers.RateLimit).toBe('"per-ip-1s";r=0;t=1, "per-ip-1m";r=42;t=17');
    expect(headers["Retry-After"]).toBe("3");
    expect(headers["X-RateLimit-Retry-After"]).toBe("3");
  });

  it("gives draft-7's and draft-6's reset the moment of Retry-After; X-RateLimit-Reset is never earlier", () => {
    const result = summarize([alsoSpent]);
    expect(headersOf(result, "draft-7").RateLimit).toBe("limit=100, remaining=0, reset=30");
    expect(headersOf(result, "draft-6")["RateLimit-Reset"]).toBe("30");
    expect(headersOf(result, "draft-6")["X-RateLimit-Reset"]).toBe("31");
  });

  it("in the none dialect carries Retry-After only", async () => {
    const response = tooManyRequests(summarize([spent]), "none");
    expect([...response.headers.keys()].sort()).toEqual(["content-type", "retry-after"]);
    expect(response.headers.get("Retry-After")).toBe("3");
    expect((await response.json<Record<string, unknown>>())["violated-policies"]).toEqual(["per-ip-1s"]);
  });
});
