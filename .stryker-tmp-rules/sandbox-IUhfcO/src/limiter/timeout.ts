/**
 * The decision timeout: a request waits for its counters no longer than
 * DECISION_TIMEOUT_MS, then FAILURE_MODE decides.
 */
// @ts-nocheck


/** Thrown when a counter object fails or does not answer in time. */
export class CounterUnavailableError extends Error {}

/**
 * `work`'s result, or CounterUnavailableError when it fails or takes longer than `timeoutMs`.
 *
 * @example
 * const verdicts = await withTimeout(stub.decide(calls), 1000);
 */
export async function withTimeout<T>(work: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CounterUnavailableError(`no answer from counters within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([
      work.catch((error: unknown) => {
        throw new CounterUnavailableError(String(error));
      }),
      deadline,
    ]);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}
