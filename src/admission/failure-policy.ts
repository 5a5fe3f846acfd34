/**
 * The failure policy (docs/reliability.md, "Failure mode"): what a decision
 * is when the counters cannot be reached in time. The one place it is made,
 * logged and counted, for every face. A new mode is a new entry of
 * FAILURE_ANSWERS (and of `FailureMode`), nothing else.
 */
import type { RateLimitResult } from "../limiter/types.ts";
import type { MetricsRecorder } from "../metrics/recorder.ts";

/** FAILURE_MODE's values: `open` lets the request through, marked; `closed` refuses it (HTTP faces answer 503). */
export type FailureMode = "open" | "closed";

/** The decision FAILURE_MODE=open makes: allowed, reason `failure_open`, no policy. */
export const FAILURE_OPEN: RateLimitResult = Object.freeze({
  allowed: true,
  reason: "failure_open",
  limit: 0,
  remaining: 0,
  resetAfterMs: 0,
  retryAfterMs: 0,
  policies: Object.freeze([]),
});

/** The decision FAILURE_MODE=closed makes: refused, reason `failure_closed`, retry in a second. */
export const FAILURE_CLOSED: RateLimitResult = Object.freeze({
  allowed: false,
  reason: "failure_closed",
  limit: 0,
  remaining: 0,
  resetAfterMs: 0,
  retryAfterMs: 1000,
  policies: Object.freeze([]),
});

const FAILURE_ANSWERS: Readonly<Record<FailureMode, RateLimitResult>> = { open: FAILURE_OPEN, closed: FAILURE_CLOSED };

/**
 * The decision for a request whose counters could not be reached: logged
 * (`ratelimit.counter_unavailable`, with `where` and the error), counted
 * (`floodgate_failure_mode_decisions_total`), and answered by `mode`.
 *
 * @example
 * const result = failureDecision("closed", error, { path: "/api" }, isolate.metrics); // FAILURE_CLOSED
 */
export function failureDecision(mode: FailureMode, error: Error, where: Record<string, string>, metrics: MetricsRecorder | undefined): RateLimitResult {
  console.error(JSON.stringify({ event: "ratelimit.counter_unavailable", failure_mode: mode, ...where, error: error.message }));
  metrics?.recordFailureMode(mode);
  return FAILURE_ANSWERS[mode];
}
