/**
 * What is sent after the origin answered (`reconciliationCalls`, pure): a
 * refund for each count_when window whose status did not match, the
 * difference between the report and the reservation for cost_from_response,
 * and nothing for requests that were charged exactly.
 */
import { describe, expect, it } from "vitest";
import type { Decision } from "../../src/algorithms/types.ts";
import type { LimitCall } from "../../src/stored/wire-calls.ts";
import { reconciliationCalls } from "../../src/limiter/reconcile.ts";
import type { DescriptorOutcome, PolicyOutcome, RateLimitResult } from "../../src/limiter/types.ts";
import type { CompiledLimit } from "../../src/rules/types.ts";
import { compileOk as compiled } from "../rules/helpers.ts";

const rules = compiled({
  domain: "settle",
  descriptors: [
    {
      key: "k",
      rate_limits: [
        { name: "failures", unit: "hour", requests_per_unit: 5, algorithm: "fixed_window", count_when: { status: [401, "5xx"] } },
        { name: "all", unit: "day", requests_per_unit: 100, algorithm: "fixed_window" },
      ],
    },
  ],
});
const limits = rules.domains.get("settle")?.root.keyOnly.get("k")?.limits ?? [];
const calls = toCalls(limits);
const decision: Decision = { allowed: true, limit: 5, remaining: 4, resetAfterMs: 0, retryAfterMs: 0, effectiveWindowMs: 0 };

/** A request decided on `rules` (the limits of one key), charged at 1000 on `object`. */
function decided(
  rules: readonly CompiledLimit[],
  limitCalls: LimitCall[],
  object: string,
  cost: number,
  extra: Partial<DescriptorOutcome> = {},
): RateLimitResult {
  const policies: PolicyOutcome[] = rules.map((rule) => ({
    domain: "settle",
    descriptor: [],
    name: rule.name,
    windowMs: rule.windowMs,
    shadow: false,
    decision,
    rule,
  }));
  const outcome: DescriptorOutcome = {
    domain: "settle",
    descriptor: [{ key: "k", value: "v" }],
    cost,
    policies,
    counter: { object, call: { key: "key", limits: limitCalls, cost, refundable: true } },
    chargedAt: 1000,
    ...extra,
  };
  return { allowed: true, reason: "allowed", limit: 5, remaining: 4, resetAfterMs: 0, retryAfterMs: 0, policies, descriptors: [outcome] };
}

function toCalls(rules: readonly CompiledLimit[]): LimitCall[] {
  return rules.map((l) => ({ id: l.id, algorithm: l.algorithm, limit: l.limit, windowMs: l.windowMs, burst: l.burst }));
}
const result = (cost: number, extra: Partial<DescriptorOutcome> = {}) => decided(limits, calls, "settle/0", cost, extra);

const answered = (status: number, headers: Record<string, string> = {}) => ({ status, headers: new Headers(headers) });

describe("reconciliationCalls", () => {
  it("refunds only the count_when window, and only when the status is not listed", () => {
    expect(reconciliationCalls(result(1), answered(401))).toEqual([]);
    expect(reconciliationCalls(result(1), answered(503))).toEqual([]);
    expect(reconciliationCalls(result(1), answered(200))).toEqual([
      { object: "settle/0", call: { kind: "refund", op: expect.any(String), key: "key", limits: [calls[0]], cost: 1, chargedAt: 1000 } },
    ]);
  });

  it("refunds the count_when window of a request that never reached the origin", () => {
    expect(reconciliationCalls(result(1), undefined)).toEqual([
      { object: "settle/0", call: { kind: "refund", op: expect.any(String), key: "key", limits: [calls[0]], cost: 1, chargedAt: 1000 } },
    ]);
  });

  it("charges the report's excess, refunds its shortfall, keeps the reservation when there is none", () => {
    const tokens = (cost: number) => result(cost, { costFromResponse: { kind: "header" as const, name: "x-tokens-used" } });
    expect(reconciliationCalls(tokens(2), answered(401, { "x-tokens-used": "9" }))).toEqual([
      { object: "settle/0", call: { kind: "absorb", op: expect.any(String), key: "key", limits: calls, cost: 7 } },
    ]);
    // Unmatched: the count_when window gives its 2 back, the other keeps 1 of them.
    expect(reconciliationCalls(tokens(2), answered(200, { "x-tokens-used": " 1 " }))).toEqual([
      { object: "settle/0", call: { kind: "refund", op: expect.any(String), key: "key", limits: [calls[0]], cost: 2, chargedAt: 1000 } },
      { object: "settle/0", call: { kind: "refund", op: expect.any(String), key: "key", limits: [calls[1]], cost: 1, chargedAt: 1000 } },
    ]);
    for (const bad of [undefined, "", "-3", "2.5", "many"]) {
      const headers: Record<string, string> = bad === undefined ? {} : { "x-tokens-used": bad };
      expect(reconciliationCalls(tokens(2), answered(401, headers)), String(bad)).toEqual([]);
    }
  });

  it("sends nothing for calls that were not taken", () => {
    expect(reconciliationCalls(result(1, { chargedAt: undefined }), answered(200))).toEqual([]);
  });

  it("leaves a concurrency limit of the same key out: its slot is freed when the response ends", () => {
    const slotted = compiled({
      domain: "settle-slot",
      descriptors: [
        {
          key: "k",
          rate_limits: [
            { name: "in-flight", concurrency: 2 },
            { name: "failures", unit: "hour", requests_per_unit: 5, algorithm: "fixed_window", count_when: { status: [401] } },
          ],
        },
      ],
    });
    const rulesOfKey = slotted.domains.get("settle-slot")?.root.keyOnly.get("k")?.limits ?? [];
    expect(rulesOfKey.map((l) => l.concurrency)).toEqual([2, undefined]);
    const limitCalls = toCalls(rulesOfKey);
    const taken = decided(rulesOfKey, limitCalls, "settle/1", 1, { costFromResponse: { kind: "header" as const, name: "x-tokens-used" } });
    expect(reconciliationCalls(taken, answered(200, { "x-tokens-used": "3" }))).toEqual([
      { object: "settle/1", call: { kind: "refund", op: expect.any(String), key: "key", limits: [limitCalls[1]], cost: 1, chargedAt: 1000 } },
    ]);
    expect(reconciliationCalls(taken, answered(401, { "x-tokens-used": "3" }))).toEqual([
      { object: "settle/1", call: { kind: "absorb", op: expect.any(String), key: "key", limits: [limitCalls[1]], cost: 2 } },
    ]);
  });
});
