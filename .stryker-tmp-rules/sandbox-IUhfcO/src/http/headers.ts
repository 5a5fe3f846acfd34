/**
 * Header names floodgate sets, and setting headers on any response.
 */
// @ts-nocheck


/**
 * Header naming a decision that is not a plain allow or 429: `failure-open`,
 * `failure-closed`, `delayed` (forwarded after waiting for a reserved slot)
 * or `queued` (202, delivered later).
 */
export const DECISION_HEADER = "X-RateLimit-Decision";

/** Milliseconds a delayed request waited for its slot before it was forwarded. */
export const DELAY_HEADER = "X-RateLimit-Delay-Ms";

/**
 * `response` with `headers` added: set in place when its headers are
 * mutable, the cheap and common case; otherwise (a `fetch` response, whose
 * headers are immutable) on a copy, the body passed through, not buffered.
 *
 * @example
 * return withHeaders(await fetch(upstream), rateLimitHeaders(result));
 */
export function withHeaders(response: Response, headers: readonly [string, string][]): Response {
  if (headers.length === 0) return response;
  try {
    setAll(response.headers, headers);
    return response;
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
  }
  const copy = new Response(response.body, response);
  setAll(copy.headers, headers);
  return copy;
}

// `response.headers` is a call into the runtime each time it is read (as
// costly as a `set`, measured in workerd), so it is read once.
function setAll(target: Headers, headers: readonly [string, string][]): void {
  for (const [name, value] of headers) target.set(name, value);
}
