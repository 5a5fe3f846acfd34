/**
 * Settling an admitted request once its answer ended (docs/llm.md, "Usage";
 * docs/response-limits.md): the counters moved to what the answer reported,
 * in the background, and the metrics told the settled charge (a budget
 * settled by its answer is counted then, not when reserved).
 */
import type { Defer } from "../http/defer.ts";
import { type Answered, sendSettlements, settledCharges, settlementCalls } from "../limiter/reconcile.ts";
import type { RateLimitResult } from "../limiter/types.ts";
import type { ReportedUsage } from "../limiter/usage-stream.ts";
import type { Engine } from "./pipeline.ts";

/**
 * Settle `result` with the origin's `response` (undefined: refused before the origin) and the `usage` its body reported.
 *
 * @example
 * settleWithResponse(isolate, result, upstream, defer); // returns at once
 * settleWithResponse(isolate, result, answered, defer, { tokens: 812, cut: false });
 */
export function settleWithResponse(engine: Engine, result: RateLimitResult, response: Answered | undefined, defer: Defer, usage?: ReportedUsage): void {
  if (result.descriptors === undefined) return;
  const charges = settledCharges(result, response, usage);
  // A body's usage settles a token budget: its refunds may ride with the next call (src/isolate/carried-refunds.ts).
  sendSettlements(engine.edge, settlementCalls(charges), defer, usage !== undefined);
  if (engine.metrics?.recordSettled(charges)) engine.metrics.scheduleFlush(defer);
}

/**
 * The downstream failed without an answer: nothing is settled in the counters (the reservation stays), and the
 * metrics count the reservation as the charge.
 *
 * @example
 * keepReservations(isolate, result, defer);
 */
export function keepReservations(engine: Engine, result: RateLimitResult, defer: Defer): void {
  if (result.descriptors === undefined || engine.metrics === undefined) return;
  const charges = settledCharges(result, undefined).map(({ outcome, charged }) => ({
    outcome,
    charged: charged.map((hits) => (hits === undefined ? undefined : outcome.cost)),
  }));
  if (engine.metrics.recordSettled(charges)) engine.metrics.scheduleFlush(defer);
}
