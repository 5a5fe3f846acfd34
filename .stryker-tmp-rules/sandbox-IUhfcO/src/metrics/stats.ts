/**
 * Envoy's per-limit statistics (`total_hits`, `over_limit`, `near_limit`,
 * `within_limit`, `shadow_mode`) for one decision, with the arithmetic of
 * envoyproxy/ratelimit's base limiter: a request of several hits can be
 * partly within, partly near and partly over the limit.
 */
// @ts-nocheck

import type { Decision } from "../algorithms/types.ts";

/** Share of the limit from which hits count as `near_limit` (Envoy's NEAR_LIMIT_RATIO default). */
export const NEAR_LIMIT_RATIO = 0.8;

/** The five per-limit counters, in the order they are printed. */
export const LIMIT_STATS = ["total_hits", "over_limit", "near_limit", "within_limit", "shadow_mode"] as const;

export type LimitStat = (typeof LIMIT_STATS)[number];

export type StatDelta = Record<LimitStat, number>;

/**
 * How one decision of `cost` hits moves each counter. `consumed` says
 * whether the hits were taken (the whole call allowed); a rejected call took
 * nothing, so its counter stood at `limit − remaining` before and would have
 * been that plus `cost` after, exactly Envoy's before/after pair.
 *
 * @example
 * limitStats({ allowed: true, limit: 10, remaining: 1, resetAfterMs: 0, retryAfterMs: 0, effectiveWindowMs: 1000 }, 1, true, false);
 * // { total_hits: 1, over_limit: 0, near_limit: 1, within_limit: 1, shadow_mode: 0 }
 */
export function limitStats(decision: Decision, cost: number, consumed: boolean, shadow: boolean): StatDelta {
  const limit = decision.limit;
  const used = Math.max(0, limit - decision.remaining);
  const before = consumed ? used - cost : used;
  const after = before + cost;
  const near = Math.floor(limit * NEAR_LIMIT_RATIO);
  const delta: StatDelta = { total_hits: cost, over_limit: 0, near_limit: 0, within_limit: 0, shadow_mode: 0 };
  if (!decision.allowed) {
    // Only the hits past the limit are over it; the rest filled it up. (A
    // weighted or bucket estimate may reject below `limit`: then all are over.)
    const partial = before < limit && after > limit;
    const over = partial ? after - limit : cost;
    delta.over_limit = over;
    if (partial) delta.near_limit = limit - Math.max(near, before);
    if (shadow) delta.shadow_mode = over;
  } else {
    delta.within_limit = cost;
    if (after > near) delta.near_limit = before >= near ? cost : after - near;
  }
  return delta;
}
