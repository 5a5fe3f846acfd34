/**
 * The one place a RateLimitResult becomes HTTP headers (SPEC section 4).
 */
import type { RateLimitResult } from "../limiter/types.ts";

/**
 * Header naming a decision that is not a plain allow or 429: `failure-open`,
 * `failure-closed`, `delayed` (forwarded after waiting for a reserved slot)
 * or `queued` (202, delivered later).
 */
export const DECISION_HEADER = "X-RateLimit-Decision";

/** Milliseconds a delayed request waited for its slot before it was forwarded. */
export const DELAY_HEADER = "X-RateLimit-Delay-Ms";

/** Whole seconds, rounded up so a client never retries too early. */
function seconds(ms: number): number {
  return Math.max(0, Math.ceil(ms / 1000));
}

/** An RFC 8941 sf-string. */
function sfString(text: string): string {
  return `"${text.replace(/[\\"]/g, (c) => "\\" + c).replace(/[^\x20-\x7e]/g, "?")}"`;
}

// Policy names come from the rules, so there are few: quote each once.
const quoted = new Map<string, string>();
const QUOTED_MAX = 1_000;

function quotedName(name: string): string {
  let text = quoted.get(name);
  if (text === undefined) {
    text = sfString(name);
    if (quoted.size >= QUOTED_MAX) quoted.clear();
    quoted.set(name, text);
  }
  return text;
}

/**
 * Seconds a rejected client must wait: exact retry-after rounded up, or,
 * when the request can never fit (limit 0, cost above capacity), the
 * policy's window, so clients back off instead of spinning.
 *
 * @example
 * retryAfterSeconds(result); // 17
 */
export function retryAfterSeconds(result: RateLimitResult): number {
  if (Number.isFinite(result.retryAfterMs)) return Math.max(1, seconds(result.retryAfterMs));
  return Math.max(1, seconds(result.policy?.windowMs ?? 1000));
}

/**
 * Headers describing the most restrictive policy; none when no limit applied.
 * A rejected request also gets `Retry-After` and `X-RateLimit-Retry-After`;
 * a queued one (nothing to retry: it will be delivered) gets
 * `X-RateLimit-Decision: queued` instead, and a delayed one
 * `X-RateLimit-Decision: delayed` and how long it waited.
 *
 * @example
 * for (const [name, value] of rateLimitHeaders(result)) response.headers.set(name, value);
 */
export function rateLimitHeaders(result: RateLimitResult): [string, string][] {
  const policy = result.policy;
  if (!policy) return [];
  const retry = result.allowed ? 0 : retryAfterSeconds(result);
  const reset = Math.max(seconds(result.resetAfterMs), retry);
  const name = quotedName(policy.name);
  const headers: [string, string][] = [
    ["X-RateLimit-Limit", String(result.limit)],
    ["X-RateLimit-Remaining", String(result.remaining)],
    ["X-RateLimit-Reset", String(reset)],
    ["RateLimit-Policy", `${name};q=${result.limit};w=${seconds(policy.windowMs)}`],
    ["RateLimit", `${name};r=${result.remaining};t=${reset}`],
  ];
  if (result.reason === "queued") headers.push([DECISION_HEADER, "queued"]);
  else if (!result.allowed) headers.push(["Retry-After", String(retry)], ["X-RateLimit-Retry-After", String(retry)]);
  if (result.reason === "delayed") headers.push([DECISION_HEADER, "delayed"], [DELAY_HEADER, String(result.delayMs ?? 0)]);
  return headers;
}

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
