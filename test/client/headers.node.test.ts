/** The client's reading of rate-limit headers, and its back-off arithmetic. */
import { describe, expect, it } from "vitest";
import { jitteredBackoff, quotaHint, retryAfterMs, serverWaitMs, Throttle } from "../../src/client/index.ts";

const h = (init: Record<string, string>) => new Headers(init);

describe("floodgate/client headers", () => {
  it("Retry-After: delta seconds, HTTP dates (past ones are 0), and nothing else", () => {
    const now = Date.parse("Wed, 21 Oct 2015 07:27:58 GMT");
    expect(retryAfterMs("7", now)).toBe(7000);
    expect(retryAfterMs(" 0 ", now)).toBe(0);
    expect(retryAfterMs("Wed, 21 Oct 2015 07:28:00 GMT", now)).toBe(2000);
    expect(retryAfterMs("Wed, 21 Oct 2015 07:00:00 GMT", now)).toBe(0);
    for (const bad of ["-1", "1.5", "soon", "", "7 seconds"]) expect(retryAfterMs(bad, now), bad).toBeUndefined();
    expect(retryAfterMs(null, now)).toBeUndefined();
  });

  it("RateLimit: the most restrictive policy of a list, quoted names with commas included", () => {
    expect(quotaHint(h({ RateLimit: '"demo";r=0;t=45' }), 0)).toEqual({ remaining: 0, resetMs: 45_000 });
    expect(quotaHint(h({ RateLimit: '"a,b";r=5;t=1, "day";r=2;t=3600, "x";r=2;t=60' }), 0)).toEqual({ remaining: 2, resetMs: 3_600_000 });
    // A name may hold ; and escaped quotes: the parameters start after the whole sf-string
    // (an item without t says nothing about time, so it is passed over).
    expect(quotaHint(h({ RateLimit: '"a \\"b\\";t=50;c";r=1, "d";r=3;t=4' }), 0)).toEqual({ remaining: 3, resetMs: 4_000 });
    // The older draft's dictionary form (draft-7).
    expect(quotaHint(h({ RateLimit: "limit=10, remaining=0, reset=30" }), 0)).toEqual({ remaining: 0, resetMs: 30_000 });
  });

  it("draft-6: RateLimit-Remaining and RateLimit-Reset, before X-RateLimit-*", () => {
    const draft6 = { "RateLimit-Limit": "10", "RateLimit-Remaining": "0", "RateLimit-Reset": "12" };
    expect(quotaHint(h(draft6), 0)).toEqual({ remaining: 0, resetMs: 12_000 });
    expect(quotaHint(h({ ...draft6, "X-RateLimit-Remaining": "5", "X-RateLimit-Reset": "99" }), 0)).toEqual({ remaining: 0, resetMs: 12_000 });
    expect(serverWaitMs(h(draft6), 0)).toBe(12_000);
  });

  it("X-RateLimit-*: reset in seconds from now, or as an epoch second", () => {
    expect(quotaHint(h({ "X-RateLimit-Remaining": "3", "X-RateLimit-Reset": "9" }), 0)).toEqual({ remaining: 3, resetMs: 9000 });
    const now = 1_700_000_000_000;
    expect(quotaHint(h({ "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1700000042" }), now)).toEqual({ remaining: 0, resetMs: 42_000 });
    expect(quotaHint(h({ "X-RateLimit-Remaining": "lots", "X-RateLimit-Reset": "9" }), 0)).toBeUndefined();
    expect(quotaHint(h({}), 0)).toBeUndefined();
  });

  it("a refusal's wait: Retry-After first, then X-RateLimit-Retry-After, then a spent quota's reset", () => {
    expect(serverWaitMs(h({ "Retry-After": "3", "X-RateLimit-Retry-After": "9" }), 0)).toBe(3000);
    expect(serverWaitMs(h({ "X-RateLimit-Retry-After": "9" }), 0)).toBe(9000);
    expect(serverWaitMs(h({ RateLimit: '"p";r=0;t=4' }), 0)).toBe(4000);
    expect(serverWaitMs(h({ RateLimit: '"p";r=1;t=4' }), 0)).toBeUndefined();
  });

  it("full jitter: a random share of base × 2^attempt, capped", () => {
    expect([0, 1, 2, 3].map((a) => jitteredBackoff(a, 500, 3000, () => 0.999_999))).toEqual([499, 999, 1999, 2999]);
    expect(jitteredBackoff(5, 500, 3000, () => 0)).toBe(0);
  });

  it("the throttle holds a key until the server's instant, and a response with quota left clears it", () => {
    const throttle = new Throttle();
    const refused = new Response(null, { status: 429, headers: { "Retry-After": "2" } });
    throttle.observe("k", refused, true, 1000);
    expect(throttle.hold("k", 1500)).toEqual({ ms: 1500, told: true });
    expect(throttle.hold("other", 1500)).toEqual({ ms: 0, told: false });
    throttle.observe("k", new Response(null, { headers: { RateLimit: '"p";r=0;t=1' } }), false, 1500);
    expect(throttle.hold("k", 1500)).toEqual({ ms: 1500, told: true }); // a shorter hint never shortens a hold
    throttle.observe("k", new Response(null, { headers: { RateLimit: '"p";r=3;t=1' } }), false, 1600);
    expect(throttle.hold("k", 1600).ms).toBe(0);
    expect(throttle.hold("k", 3000).ms).toBe(0);
  });
});
