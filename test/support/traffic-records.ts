/**
 * What the metrics tests record in a traffic log (src/metrics/traffic.ts)
 * and send to a metrics shard: a start time, a policy, a record's counts.
 */
import type { StatDelta } from "../../src/metrics/stats.ts";

/** 2026-01-01T00:00:00Z, a whole number of 10-minute slices. */
export const T0 = 1_767_225_600_000;

/** A policy as the traffic log records it: "five", a one-minute window, enforced. */
export const five = { name: "five", windowMs: 60_000, shadow: false };

/**
 * One record's counts: `within` hits allowed and `over` limited, `near` of
 * them near the limit and `shadow` in shadow mode.
 *
 * @example
 * log.record("api", "user", five, delta(3, 2), [{ key: "user", value: "alice" }], T0 + 5_000);
 */
export function delta(within: number, over: number, near = 0, shadow = 0): StatDelta {
  return { total_hits: within + over, within_limit: within, over_limit: over, near_limit: near, shadow_mode: shadow };
}
