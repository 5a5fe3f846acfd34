/**
 * The failure policy (docs/reliability.md, "Failure mode"): what a decision
 * is when the counters cannot be reached in time. The one place it is made,
 * logged and counted, for every face. A new mode is a new entry of
 * FAILURE_ANSWERS (and of `FailureMode`), nothing else.
 */
import type { Settings } from "../config.ts";
import type { EdgeRuntime } from "../isolate/runtime.ts";
import type { CounterUnavailableError } from "../limiter/timeout.ts";
import type { RateLimitResult } from "../limiter/types.ts";
import type { MetricsRecorder } from "../metrics/recorder.ts";
import { isolateDecision } from "./local-decision.ts";

/**
 * FAILURE_MODE's values: `local` (the default) decides in the isolate with
 * its own counters, marked; `open` lets the request through, marked;
 * `closed` refuses it (HTTP faces answer 503).
 */
export type FailureMode = Settings["failureMode"];

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

// `local` has no fixed answer: with nothing planned to decide (never, from the engine) it lets the request through.
const FAILURE_ANSWERS: Readonly<Record<FailureMode, RateLimitResult>> = { local: FAILURE_OPEN, open: FAILURE_OPEN, closed: FAILURE_CLOSED };

/**
 * The decision for a request whose counters could not be reached: logged
 * (`ratelimit.counter_unavailable`, with `where` and the error), counted
 * (`floodgate_failure_mode_decisions_total`), and answered by `mode`. In
 * every mode a call the isolate knows to be over its limit (a cached
 * certain block) is refused; an overloaded object never opens (`open`
 * decides locally then).
 *
 * @example
 * const result = failureDecision("closed", error, { path: "/api" }, isolate.metrics, isolate.edge); // FAILURE_CLOSED
 */
export function failureDecision(
  mode: FailureMode,
  error: CounterUnavailableError,
  where: Record<string, string>,
  metrics: MetricsRecorder | undefined,
  edge: EdgeRuntime,
  shadowAll?: boolean,
): RateLimitResult {
  const effective: FailureMode = mode === "open" && error.overloaded ? "local" : mode;
  console.error(JSON.stringify({ event: "ratelimit.counter_unavailable", failure_mode: effective, ...where, error: error.message }));
  metrics?.recordFailureMode(effective);
  const known = error.unanswered === undefined ? undefined : isolateDecision(edge, error.unanswered, effective === "local", shadowAll);
  return known ?? FAILURE_ANSWERS[effective];
}
