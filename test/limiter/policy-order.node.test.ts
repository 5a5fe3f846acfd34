/**
 * The order a response lists its policies in (src/limiter/headers/order.ts):
 * rejecting ones first, the longest wait first (ties in request order);
 * then the least remaining, the latest reset first among equals; shadow
 * ones never; the policy that decided always first. The 429's
 * violated-policies names each refusing policy once, in that order.
 */
import { describe, expect, it } from "vitest";
import type { Decision } from "../../src/algorithms/types.ts";
import { listedPolicies, violatedPolicies } from "../../src/limiter/headers/order.ts";
import { summarize } from "../../src/limiter/summarize.ts";
import type { PolicyOutcome } from "../../src/limiter/types.ts";

const decision = (allowed: boolean, remaining: number, resetAfterMs: number, retryAfterMs = 0): Decision => ({
  allowed,
  limit: 10,
  remaining,
  resetAfterMs,
  retryAfterMs,
  effectiveWindowMs: 1_000,
});
const policy = (name: string, d: Decision, extra: Partial<PolicyOutcome> = {}): PolicyOutcome => ({
  domain: "d",
  descriptor: [{ key: name, value: "v" }],
  name,
  windowMs: 60_000,
  shadow: false,
  decision: d,
  ...extra,
});
const names = (list: readonly PolicyOutcome[]) => list.map((p) => p.name);

describe("policy order", () => {
  it("lists admitted policies by least remaining, the latest reset first among equals", () => {
    const policies = [
      policy("a", decision(true, 5, 1_000)),
      policy("b", decision(true, 2, 1_000)),
      policy("c", decision(true, 2, 9_000)),
      policy("d", decision(true, 7, 500)),
    ];
    const result = summarize(policies);
    expect(names(listedPolicies(result))).toEqual(["c", "b", "a", "d"]);
    expect(result.policy?.name).toBe("c");
    expect(violatedPolicies(result)).toEqual([]);
  });

  it("lists refusing policies first, the longest wait first, ties in request order; names each refusing policy once", () => {
    const policies = [
      policy("ok", decision(true, 0, 100)),
      policy("short", decision(false, 0, 1_000, 300)),
      policy("long", decision(false, 0, 5_000, 4_000)),
      policy("tie", decision(false, 0, 1_000, 300)),
      policy("long", decision(false, 0, 6_000, 4_000)),
    ];
    const result = summarize(policies);
    expect(names(listedPolicies(result))).toEqual(["long", "long", "short", "tie", "ok"]);
    expect(violatedPolicies(result)).toEqual(["long", "short", "tie"]);
  });

  it("never lists a shadow policy, and a single enforcing one is listed as it is", () => {
    const quiet = policy("quiet", decision(false, 0, 1_000, 900), { shadow: true });
    const loud = policy("loud", decision(true, 3, 1_000));
    expect(names(listedPolicies(summarize([quiet, loud])))).toEqual(["loud"]);
    expect(listedPolicies(summarize([quiet]))).toEqual([]);
    const alone = summarize([loud]);
    expect(listedPolicies(alone)).toBe(alone.policies);
  });

  it("puts the policy that decided first, even when an over quota_mode limit would sort ahead of it", () => {
    const overQuota = policy("quota-over", decision(false, 0, 1_000, 5_000), { quota: true, descriptor: [{ key: "q1", value: "v" }] });
    const okQuota = policy("quota-ok", decision(true, 4, 1_000), { quota: true, descriptor: [{ key: "q2", value: "v" }] });
    const plain = policy("plain", decision(true, 1, 1_000));
    const result = summarize([overQuota, okQuota, plain]);
    expect(result.allowed).toBe(true);
    expect(result.policy?.name).toBe("quota-over");
    const refused = summarize([plain, policy("deny", decision(false, 0, 1_000, 700)), overQuota]);
    // With no other quota descriptor, quota-over is every quota descriptor and over: it refuses, and waits longest.
    expect(names(listedPolicies(refused))).toEqual(["quota-over", "deny", "plain"]);
    const decided = { ...summarize([overQuota, okQuota, policy("deny", decision(false, 0, 1_000, 700))]) };
    expect(decided.policy?.name).toBe("deny");
    expect(names(listedPolicies(decided))).toEqual(["deny", "quota-over", "quota-ok"]);
    expect(violatedPolicies(decided)).toEqual(["deny", "quota-over"]);
  });
});
