/**
 * The admission pipeline's public entry (docs/architecture.md, "The
 * admission pipeline"): the only module of the pipeline, the decision
 * engine, the failure policy, the metrics recorder and the 429's rendering
 * a face may import (.dependency-cruiser.cjs, "faces-use-the-pipeline").
 */
export { type FailureMode, FAILURE_CLOSED, FAILURE_OPEN } from "./failure-policy.ts";
export { type ClientLimit, type ClientLimitOptions, clientLimit } from "./client-limit.ts";
export { knownRefusalMs } from "./known-refusal.ts";
export { type AdmissionOptions, admitDescriptors, admitThen, type Engine, recordUnknownDomain } from "./pipeline.ts";
export { admittedHeaders, COUNTERS_UNREACHABLE_DETAIL, countersUnreachableResponse, FAILURE_OPEN_HEADER, LOCAL_DECISION_HEADER, refusal } from "./render.ts";
export { identifierRequest } from "./identifier.ts";
export { reconcileWithResponse } from "../limiter/reconcile.ts";
export { followUsage, type ReportedUsage } from "../limiter/usage-stream.ts";
export type { BodyCost } from "../limiter/usage.ts";
export { rateLimitHeaders, retryAfterSeconds, tooManyRequests } from "../limiter/respond.ts";
export { MetricsRecorder } from "../metrics/recorder.ts";
