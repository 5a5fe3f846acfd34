/**
 * The decision timeout: a request waits for its counters no longer than
 * DECISION_TIMEOUT_MS, then FAILURE_MODE decides.
 */
import type { Defer } from "../http/defer.ts";
import type { CounterVerdict } from "../stored/wire-calls.ts";
import type { DraftOutcome, PlannedCall } from "./plan.ts";

/** What a decision had planned when its counters failed: enough for the isolate to decide it alone. */
export interface Unanswered {
  readonly outcomes: DraftOutcome[];
  readonly groups: readonly (readonly PlannedCall[])[];
  /**
   * The objects' answers, which may still come after the timeout (one list
   * per group), or the failure: a local decision reconciles with them
   * (docs/reliability.md, "Late answers"). Absent: none can come.
   */
  readonly late?: Promise<CounterVerdict[][]>;
  /** Keeps the request alive until the late answers are in (ctx.waitUntil). */
  readonly defer?: Defer;
}

/** Thrown when a counter object fails or does not answer in time. */
export class CounterUnavailableError extends Error {
  /** The platform said the object is overloaded (`overloaded: true`): never retried, never opens (docs/reliability.md, "Failure mode"). */
  readonly overloaded: boolean;
  /** Set by the decision engine: the calls that went unanswered. */
  unanswered?: Unanswered;

  constructor(message: string, overloaded = false) {
    super(message);
    this.overloaded = overloaded;
  }
}

/**
 * Whether `error` is the platform's "overloaded" answer of a Durable Object.
 *
 * @example
 * isOverloaded(Object.assign(new Error("overloaded"), { overloaded: true })); // true
 */
export function isOverloaded(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { overloaded?: unknown }).overloaded === true;
}

/**
 * `work`'s result, or CounterUnavailableError when it fails or takes longer than `timeoutMs`.
 *
 * @example
 * const verdicts = await withTimeout(stub.decide(calls), 1000);
 */
export function withTimeout<T>(work: Promise<T>, timeoutMs: number): Promise<T> {
  // One promise and one timer, settled from this request's own callbacks: every strong decision pays for it.
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new CounterUnavailableError(`no answer from counters within ${timeoutMs} ms`)), timeoutMs);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(new CounterUnavailableError(String(error), isOverloaded(error)));
      },
    );
  });
}
