/**
 * The admission pipeline (docs/architecture.md, "The admission pipeline"):
 * `decide → apply the failure policy → record metrics → answer`, the one
 * path every face takes. A face turns its input into descriptors and the
 * one RateLimitResult into its own output shape; what happens in between is
 * here, once.
 */
import type { EdgeRuntime } from "../isolate/runtime.ts";
import type { Defer } from "../http/defer.ts";
import { type DecideOptions, decide } from "../limiter/decide.ts";
import { CounterUnavailableError } from "../limiter/timeout.ts";
import type { RateLimitResult } from "../limiter/types.ts";
import type { MetricsRecorder } from "../metrics/recorder.ts";
import type { DomainDescriptors } from "../rules/types.ts";
import { type FailureMode, failureDecision } from "./failure-policy.ts";

/** What a face decides with: an isolate's context, or a drop-in's own parts. */
export interface Engine {
  readonly edge: EdgeRuntime;
  /** Absent: nothing is counted (a drop-in made without a metrics namespace). */
  readonly metrics?: MetricsRecorder;
  readonly settings: { readonly failureMode: FailureMode };
}

/** One admission: the decision's options, and what the pipeline needs besides. */
export interface AdmissionOptions extends DecideOptions {
  /** Where the failure log line says the request was (path, domain, binding); called only on a failure. */
  where?(): Record<string, string>;
  /**
   * Count each limit's outcome in the metrics (default true). floodgate's
   * own internal limits (queued-status reads, admin authentication) count
   * only their failures: their domains are not the operator's rules.
   */
  readonly countOutcomes?: boolean;
  /** Offer the result to the traffic sample (docs/advisor.md, "Sample") before the metrics send is scheduled, so its row rides with it. */
  recordSample?(result: RateLimitResult): void;
}

/**
 * Decide `descriptors`, apply the failure policy when the counters cannot
 * be reached, record the outcome in `engine.metrics` (sent through
 * `background`), and hand the result to `answer`, the face's own output.
 * A failure is a result too (reason `failure_open` or `failure_closed`, or
 * the isolate's own decision, `decidedLocally`): `answer` sees every request.
 *
 * @example
 * return admitThen(isolate, descriptors, options, defer, (result) => result.allowed);
 */
export async function admitThen<O extends AdmissionOptions, T>(
  engine: Engine,
  descriptors: readonly DomainDescriptors[],
  options: O,
  background: Defer,
  answer: (result: RateLimitResult, options: O) => T | Promise<T>,
): Promise<T> {
  let result: RateLimitResult;
  try {
    // The modes that may decide in the isolate count what the objects allow there too (src/isolate/local-counters.ts).
    result = await decide(engine.edge, descriptors, options, engine.settings.failureMode !== "closed");
  } catch (error) {
    if (!(error instanceof CounterUnavailableError)) throw error;
    result = failureDecision(engine.settings.failureMode, error, options.where?.() ?? {}, engine.metrics, engine.edge, options.shadowAll);
    if (options.countOutcomes !== false) options.recordSample?.(result);
    engine.metrics?.scheduleFlush(background);
    return answer(result, options);
  }
  const metrics = engine.metrics;
  if (metrics !== undefined && result.descriptors !== undefined && options.countOutcomes !== false) {
    metrics.recordOutcomes(result.descriptors);
    if (result.reason === "shadow") metrics.recordGlobalShadow();
    options.recordSample?.(result);
    metrics.scheduleFlush(background);
  }
  return answer(result, options);
}

const asResult = (result: RateLimitResult): RateLimitResult => result;

/**
 * `admitThen` for a face that reads the result itself.
 *
 * @example
 * const result = await admit(isolate, descriptors, { timeoutMs, defer }, defer);
 * if (!result.allowed) return refusal(result, dialect);
 */
export function admitDescriptors(
  engine: Engine,
  descriptors: readonly DomainDescriptors[],
  options: AdmissionOptions,
  background: Defer,
): Promise<RateLimitResult> {
  return admitThen(engine, descriptors, options, background, asResult);
}

/**
 * Count descriptors sent for a domain the rules do not define (Envoy's
 * `domain_not_found`): no decision is made for them.
 *
 * @example
 * recordUnknownDomain(isolate, "nope", 2, defer);
 */
export function recordUnknownDomain(engine: Engine, domain: string, descriptors: number, background: Defer): void {
  if (engine.metrics === undefined) return;
  for (let i = 0; i < descriptors; i++) engine.metrics.recordDomainNotFound(domain);
  engine.metrics.scheduleFlush(background);
}
