/**
 * Compiled limits as the counter objects take them: plain data for RPC,
 * and the call one descriptor makes on its counter.
 */
import type { CounterCall, LimitCall, SlotLease } from "../stored/wire-calls.ts";
import type { CompiledLimit } from "../rules/types.ts";
import type {} from "./kept.ts";

/**
 * The call for one descriptor. With `on_limit` honoured and a `delay` limit
 * among its windows, it reserves: the delay windows may admit the request at
 * a future slot, no further away than the smallest of their `max_delay_ms`.
 * With `slot`, its concurrency limits take a slot for that holder.
 *
 * @example
 * counterCall(key, limits, 1, true); // { kind: "reserve", ... } when a limit delays
 */
export function counterCall(key: string, limits: readonly CompiledLimit[], cost: number, honoured: boolean, slot?: SlotLease): CounterCall {
  const delays = honoured ? limits.filter((limit) => limit.onLimit === "delay") : [];
  // The compiler keeps delays off nodes with concurrency limits, so a call with a slot never reserves.
  if (slot !== undefined) return { key, limits: limitCalls(limits), cost, slot };
  if (delays.length === 0) return { key, limits: limitCalls(limits), cost };
  return {
    key,
    limits: limits.map((limit) => (limit.onLimit === "delay" ? { ...toLimitCall(limit), reserve: true } : toLimitCall(limit))),
    cost,
    kind: "reserve",
    maxDelayMs: Math.min(...delays.map((limit) => limit.maxDelayMs ?? 0)),
  };
}

// One LimitCall per compiled limit, kept with it (kept.ts): no allocation per request but the array,
// and the calls of a batch share their limits, which the RPC's structured clone sends once and refers back to.
function limitCalls(limits: readonly CompiledLimit[]): LimitCall[] {
  return limits.map((limit) => {
    const kept = limit.kept;
    if (kept === undefined) return toLimitCall(limit);
    return (kept.call ??= toLimitCall(limit));
  });
}

/**
 * A compiled limit as the counter objects take it (plain data for RPC).
 *
 * @example
 * env.COUNTERS.getByName(name).peek({ key, limits: limits.map(toLimitCall), cost: 0 });
 */
export function toLimitCall(limit: CompiledLimit): LimitCall {
  return {
    id: limit.id,
    algorithm: limit.algorithm,
    limit: limit.limit,
    windowMs: limit.windowMs,
    burst: limit.burst,
    ...(limit.persistMs !== undefined ? { persistMs: limit.persistMs } : {}),
    ...(limit.strict ? { strict: true } : {}),
    ...(limit.concurrency !== undefined ? { concurrency: true } : {}),
    ...(limit.penalty !== undefined ? { penalty: limit.penalty } : {}),
  };
}
