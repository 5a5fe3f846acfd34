/**
 * Reconciling a decision with the response (docs/response-limits.md): after the origin answered, give back the hits
 * of `count_when` limits whose response did not match, and charge what a
 * `cost_from_response` route's origin reported beyond what was reserved.
 * The calls run in the background (`defer`); the response never waits.
 */
import type { CounterCall } from "../stored/wire-calls.ts";
import { newOp } from "../isolate/op-ids.ts";
import type { EdgeRuntime } from "../isolate/runtime.ts";
import type { Defer } from "../http/defer.ts";
import { countsStatus } from "../rules/count-when.ts";
import type { ResponseCost } from "../rules/types.ts";
import type { DescriptorOutcome, RateLimitResult } from "./types.ts";
import type { ReportedUsage } from "./usage-stream.ts";

/** What `reconciliationCalls` needs of the origin's response. */
export interface Answered {
  readonly status: number;
  readonly headers: Headers;
}

/** One call to send after the response, to the object named. */
export interface Reconciliation {
  readonly object: string;
  readonly call: CounterCall;
}

const WHOLE = /^\d{1,15}$/;
// The largest count a limit holds: a larger report empties any key just the same.
const MAX_REPORTED = 4_294_967_295;

/**
 * The refunds and extra charges `result` needs once the origin answered
 * with `response`, or (`undefined`) once the request was refused without
 * reaching the origin: no response, so nothing `count_when` counts. Pure:
 * the caller sends them.
 *
 * @example
 * reconciliationCalls(result, { status: 200, headers: new Headers() });
 * // [{ object, call: { kind: "refund", key, limits, cost: 1, chargedAt } }] for a count_when [401] limit
 * reconciliationCalls(result, answered, { tokens: 300, cut: false }); // a usage report of 300 tokens, reserved 1024: a refund of 724
 */
export function reconciliationCalls(result: RateLimitResult, response: Answered | undefined, usage?: ReportedUsage): Reconciliation[] {
  return settlementCalls(settledCharges(result, response, usage));
}

/**
 * The refunds and extra charges that move each counter to its settled charge.
 *
 * @example
 * settlementCalls(settledCharges(result, answered, usage)); // [{ object, call: { kind: "refund", …, cost: 724 } }]
 */
export function settlementCalls(charges: readonly SettledCharge[]): Reconciliation[] {
  const out: Reconciliation[] = [];
  for (const { outcome, charged } of charges) {
    // Per window, the difference from what it took; grouped into one call per difference.
    const byDelta = new Map<number, number[]>();
    charged.forEach((target, k) => {
      const delta = target === undefined ? 0 : target - outcome.cost;
      if (delta === 0) return;
      let list = byDelta.get(delta);
      if (list === undefined) byDelta.set(delta, (list = []));
      list.push(k);
    });
    for (const [delta, windows] of byDelta) out.push(settlement(outcome, delta, windows));
  }
  return out;
}

/** One descriptor's charge once settled: per policy (in `outcome.policies` order) the hits it keeps, undefined for a concurrency slot. */
export interface SettledCharge {
  readonly outcome: DescriptorOutcome;
  readonly charged: readonly (number | undefined)[];
}

/**
 * Per descriptor that took hits, what each of its windows keeps once the
 * origin answered with `response` (undefined: refused before the origin):
 * the usage reported (docs/llm.md, "Usage"), the reservation when nothing
 * was reported, 0 for a `count_when` limit the status does not count. The
 * calls of `reconciliationCalls` move each counter to these; the metrics
 * count them (docs/llm.md, "Costs and limits"). Pure.
 *
 * @example
 * settledCharges(result, answered, { tokens: 300, cut: false }); // [{ outcome, charged: [300, 300] }]: 300 tokens on both budgets
 */
export function settledCharges(result: RateLimitResult, response: Answered | undefined, usage?: ReportedUsage): SettledCharge[] {
  const out: SettledCharge[] = [];
  for (const outcome of result.descriptors ?? []) {
    if (outcome.counter === undefined || outcome.chargedAt === undefined) continue;
    const reported = reportedOf(outcome.costFromResponse, outcome.cost, response, usage);
    const charged = outcome.policies.map((policy) => {
      // A concurrency slot is freed when the response ends (docs/concurrency.md): it is no count to settle.
      if (policy.rule?.concurrency !== undefined) return undefined;
      const countWhen = policy.rule?.countWhen;
      const counted = countWhen === undefined || (response !== undefined && countsStatus(countWhen, response.status));
      return counted ? (reported ?? outcome.cost) : 0;
    });
    out.push({ outcome, charged });
  }
  return out;
}

function settlement(outcome: DescriptorOutcome, delta: number, windows: readonly number[]): Reconciliation {
  const { object, call } = outcome.counter as NonNullable<DescriptorOutcome["counter"]>;
  const limits = windows.map((k) => call.limits[k]);
  // A charge over what is left takes what fits and empties the key: its next requests are refused.
  // Each with an id: a retry of a call whose answer was lost applies nothing twice (docs/reliability.md, "Exactly once").
  if (delta > 0) return { object, call: { kind: "absorb", op: newOp(), key: call.key, limits, cost: delta } };
  return { object, call: { kind: "refund", op: newOp(), key: call.key, limits, cost: -delta, chargedAt: outcome.chargedAt as number } };
}

// What the origin reported for an outcome (undefined: keep the reservation; `response` undefined: it never got there). A report read from the body of an
// answer cut short (docs/llm.md, "When a stream is cut short") is charged only where it is more than the reservation.
function reportedOf(cost: ResponseCost | undefined, reserved: number, response: Answered | undefined, usage: ReportedUsage | undefined): number | undefined {
  if (cost === undefined) return undefined;
  // Refused before the origin (by another budget of the request): no tokens were spent, none stay reserved.
  if (response === undefined) return cost.kind === "header" ? undefined : 0;
  if (cost.kind === "header") return reportedCost(response.headers.get(cost.name));
  if (usage?.tokens === undefined) return undefined;
  const tokens = Math.min(usage.tokens, MAX_REPORTED);
  return usage.cut ? Math.max(reserved, tokens) : tokens;
}

// A missing or malformed report charges nothing beyond the reservation.
function reportedCost(text: string | null): number | undefined {
  const trimmed = text?.trim();
  return trimmed !== undefined && WHOLE.test(trimmed) ? Math.min(Number(trimmed), MAX_REPORTED) : undefined;
}

/**
 * Send the settlements of `result` for `response` in the background.
 *
 * @example
 * reconcileWithResponse(isolate.edge, result, upstream, defer); // returns at once
 * reconcileWithResponse(isolate.edge, result, upstream, defer, { tokens: 812, cut: false }); // the usage its body reported
 */
export function reconcileWithResponse(edge: EdgeRuntime, result: RateLimitResult, response: Answered | undefined, defer: Defer, usage?: ReportedUsage): void {
  if (result.descriptors === undefined) return;
  sendSettlements(edge, settlementCalls(settledCharges(result, response, usage)), defer);
}

/**
 * Send `calls` in the background: one RPC per object, whatever number of
 * its counters settle. With `carry` (a token budget's settlement,
 * docs/llm.md), an object's calls that are all refunds ride with this
 * isolate's next batch to it instead, if one leaves soon enough
 * (src/isolate/carried-refunds.ts): never more RPCs than sending them at once.
 *
 * @example
 * sendSettlements(isolate.edge, settlementCalls(charges), defer);
 * sendSettlements(isolate.edge, settlementCalls(charges), defer, true); // refunds ride with the next call
 */
export function sendSettlements(edge: EdgeRuntime, calls: readonly Reconciliation[], defer: Defer, carry = false): void {
  if (calls.length === 0) return;
  if (calls.length === 1 && !carry) return void defer(edge.decideCalls(calls[0].object, [{ call: calls[0].call, cacheable: false }], defer));
  const byObject = new Map<string, CounterCall[]>();
  for (const { object, call } of calls) {
    let list = byObject.get(object);
    if (list === undefined) byObject.set(object, (list = []));
    list.push(call);
  }
  for (const [object, list] of byObject) {
    if (carry && list.every((call) => call.kind === "refund")) edge.carryRefunds(object, list, defer);
    else
      defer(
        edge.decideCalls(
          object,
          list.map((call) => ({ call, cacheable: false })),
          defer,
        ),
      );
  }
}
