/**
 * The bounds of what an origin may report for `cost_from_response`
 * (src/limiter/reconcile.ts, docs/response-limits.md): at most 15 digits, a
 * report above the largest count a limit holds charged as that count, and
 * settlements sent in the background through the edge to the counter that
 * took the hits (plain counter objects, test/support/plain-counters.ts).
 * Breaks tried: `\d{1,15}` as `\d{1,16}` and the clamp removed each fail here.
 */
import { describe, expect, it } from "vitest";
import { EdgeRuntime } from "../../src/isolate/runtime.ts";
import { decide } from "../../src/limiter/decide.ts";
import { reconcileWithResponse, reconciliationCalls } from "../../src/limiter/reconcile.ts";
import type { RateLimitResult } from "../../src/limiter/types.ts";
import { domainOf } from "../rules/helpers.ts";
import { plainNamespace } from "../support/plain-counters.ts";

const domain = domainOf({ domain: "report", descriptors: [{ key: "k", rate_limit: { unit: "hour", requests_per_unit: 100, algorithm: "fixed_window" } }] });
const START = 3_600_000 * 500;

function setup() {
  const clock = START;
  const counters = plainNamespace(() => clock);
  const edge = new EdgeRuntime(counters.binding, { now: () => clock, coalesce: false });
  const request = [{ domain, descriptors: [[{ key: "k", value: "v" }]], costFromResponse: { kind: "header" as const, name: "x-used" } }];
  return { edge, request };
}

/** A decided request as the object answers one it charged (the plain objects leave out `chargedAt`). */
async function charged(edge: EdgeRuntime, request: ReturnType<typeof setup>["request"], cost = 2): Promise<RateLimitResult> {
  const result = await decide(edge, request, { timeoutMs: 1_000, cost });
  const [outcome] = result.descriptors ?? [];
  return { ...result, descriptors: [{ ...outcome, chargedAt: START }] };
}

const reported = (value: string) => ({ status: 200, headers: new Headers({ "x-used": value }) });

describe("cost_from_response reports", () => {
  it("reads at most 15 digits, and charges a report above the largest count as that count", async () => {
    const { edge, request } = setup();
    const result = await charged(edge, request);
    const cost = (value: string) => reconciliationCalls(result, reported(value)).map((s) => [s.call.kind, s.call.cost]);
    expect(cost("123456789012345")).toEqual([["absorb", 4_294_967_295 - 2]]);
    expect(cost("1234567890123456")).toEqual([]);
    expect(cost("4294967295")).toEqual([["absorb", 4_294_967_293]]);
    expect(cost("4294967296")).toEqual([["absorb", 4_294_967_293]]);
    expect(cost("4294967294")).toEqual([["absorb", 4_294_967_292]]);
    expect(cost("\t7\n")).toEqual([["absorb", 5]]);
    expect(cost("2")).toEqual([]);
    expect(cost("0")).toEqual([["refund", 2]]);
  });

  it("charges only the reservation of a request refused before the origin, and nothing without a counter", async () => {
    const { edge, request } = setup();
    const result = await charged(edge, request);
    expect(reconciliationCalls(result, undefined)).toEqual([]);
    const [outcome] = result.descriptors ?? [];
    expect(reconciliationCalls({ ...result, descriptors: [{ ...outcome, counter: undefined }] }, reported("9"))).toEqual([]);
    expect(reconciliationCalls({ ...result, descriptors: undefined }, reported("9"))).toEqual([]);
  });

  it("sends the extra charge in the background to the counter that took the hits", async () => {
    const { edge, request } = setup();
    const result = await charged(edge, request);
    const background: Promise<unknown>[] = [];
    reconcileWithResponse(edge, result, reported("30"), (p) => void background.push(p));
    expect(background).toHaveLength(1);
    await Promise.all(background);
    // 100 − 2 reserved − 28 charged after the response; a read takes nothing.
    expect((await decide(edge, request, { timeoutMs: 1_000, cost: 0 })).remaining).toBe(70);
    // A result with no descriptors (no limit applied) sends nothing.
    reconcileWithResponse(edge, { ...result, descriptors: undefined }, reported("30"), (p) => void background.push(p));
    expect(background).toHaveLength(1);
  });
});
