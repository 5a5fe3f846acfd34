/**
 * Limit and counter calls for tests that talk to a CounterObject directly.
 */
import type { CounterCall, LimitCall } from "../../src/stored/wire-calls.ts";

/**
 * `limit` hits an hour (burst = limit) with `algorithm`; the id names both, so two calls agree on a counter.
 *
 * @example
 * const [verdict] = await stub.decide([{ key, limits: [perHour(100)], cost: 1 }]);
 */
export const perHour = (limit: number, algorithm: LimitCall["algorithm"] = "fixed_window"): LimitCall => ({
  id: `${algorithm}-${limit}-h`,
  algorithm,
  limit,
  windowMs: 3_600_000,
  burst: limit,
});

/**
 * A fixed one-minute window of 1,000, with `extra` over it.
 *
 * @example
 * minute({ limit: 5, burst: 5 }); // { id: "fw-1m", algorithm: "fixed_window", limit: 5, windowMs: 60_000, burst: 5 }
 */
export const minute = (extra: Partial<LimitCall> = {}): LimitCall => ({
  id: "fw-1m",
  algorithm: "fixed_window",
  limit: 1_000,
  windowMs: 60_000,
  burst: 1_000,
  ...extra,
});

/**
 * `cost` hits on `key` under `limit`.
 *
 * @example
 * await stub.decide([hit("user-1", minute())]);
 */
export const hit = (key: string, limit: LimitCall, cost = 1): CounterCall => ({ key, cost, limits: [limit] });
