/**
 * The decision timeout: a request waits for its counters no longer than
 * DECISION_TIMEOUT_MS, then FAILURE_MODE decides.
 */

/** Thrown when a counter object fails or does not answer in time. */
export class CounterUnavailableError extends Error {}

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
        reject(new CounterUnavailableError(String(error)));
      },
    );
  });
}
