/**
 * FAILURE_MODE, applied the same way by the gateway and the decision API
 * when a counter object cannot be reached in time: the failure is logged
 * and counted, and the caller answers by the mode.
 */
// @ts-nocheck

import type { CounterUnavailableError } from "../limiter/decide.ts";
import type { Isolate } from "./isolate.ts";

/**
 * Log and count an unreachable counter; the mode says how to answer
 * (`closed`: refuse, 503; `open`: let the request through, marked).
 *
 * @example
 * if (countersUnreachable(isolate, error, { path }) === "closed") return problem(503, ...);
 */
export function countersUnreachable(isolate: Isolate<unknown>, error: CounterUnavailableError, where: Record<string, string>): "open" | "closed" {
  const mode = isolate.settings.failureMode;
  console.error(JSON.stringify({ event: "ratelimit.counter_unavailable", failure_mode: mode, ...where, error: error.message }));
  isolate.metrics.recordFailureMode(mode);
  return mode;
}
