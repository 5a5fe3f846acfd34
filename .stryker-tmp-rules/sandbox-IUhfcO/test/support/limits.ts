/**
 * Limit calls for tests that talk to a CounterObject directly.
 */
// @ts-nocheck

import type { LimitCall } from "../../src/durable/protocol.ts";

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
