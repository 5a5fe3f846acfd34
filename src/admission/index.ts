/**
 * The admission pipeline's public entry (docs/architecture.md, "The
 * admission pipeline"): the only module of the pipeline, the decision
 * engine, the failure policy, the metrics recorder and the refusals
 * (refusal.ts: every 429 and 503) a face may import (.dependency-cruiser.cjs, "faces-use-the-pipeline").
 */
export { type FailureMode, FAILURE_CLOSED, FAILURE_OPEN } from "./failure-policy.ts";
export { type ClientLimit, type ClientLimitOptions, clientLimit } from "./client-limit.ts";
export { knownRefusalMs } from "./known-refusal.ts";
export { type AdmissionOptions, admitDescriptors, admitThen, type Engine, recordUnknownDomain } from "./pipeline.ts";
export { admittedHeaders, FAILURE_OPEN_HEADER, LOCAL_DECISION_HEADER } from "./render.ts";
export {
  adminApiOff,
  COUNTERS_UNREACHABLE_DETAIL,
  countersUnreachable,
  decisionAnswer,
  misconfigured,
  queueUnavailable,
  refusal,
  tooManyAuthFailures,
} from "./refusal.ts";
export { identifierRequest } from "./identifier.ts";
export { reconcileWithResponse } from "../limiter/reconcile.ts";
export { keepReservations, settleWithResponse } from "./settle.ts";
export { followUsage, type ReportedUsage } from "../limiter/usage-stream.ts";
export type { BodyCost } from "../limiter/usage.ts";
export { rateLimitHeaders, retryAfterSeconds } from "../limiter/respond.ts";
export { MetricsRecorder } from "../metrics/recorder.ts";
