/**
 * Calls for counter objects' tests, written once: a one-minute fixed
 * window and a hit on it.
 */
import type { CounterCall, LimitCall } from "../../src/durable/protocol.ts";

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
