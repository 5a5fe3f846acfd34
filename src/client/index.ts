/**
 * `floodgate/client`: a `fetch` that behaves well towards rate limits.
 * It never sends before the `Retry-After` it was given, backs off with
 * jittered exponential delays, holds back while the last `RateLimit` header
 * said the quota is spent, and gives up with a RateLimitError once its retry
 * budget is used. Standard web APIs only (fetch, Request, Headers, timers):
 * it runs in browsers, Node (≥ 18) and Workers.
 */
import { serverWaitMs } from "./headers.ts";
import { jitteredBackoff, originKey, Throttle } from "./throttle.ts";

export { quotaHint, retryAfterMs, serverWaitMs, type QuotaHint } from "./headers.ts";
export { type PolicyHeader, rateLimitPolicies } from "./policies.ts";
export { jitteredBackoff, originKey, Throttle } from "./throttle.ts";
export { type QuotaPolicy, rateLimitStatus, type RateLimitStatusOptions, RateLimitStatusError, type StatusRoute } from "./status.ts";

/** Options of `rateLimitedFetch`; every one has a default. */
export interface RateLimitedFetchOptions {
  /** The fetch to call (default: the global one). */
  readonly fetch?: (request: Request) => Promise<Response>;
  /** Retries after the first attempt: the retry budget (default 3). */
  readonly maxRetries?: number;
  /** Most time spent waiting in one call, pre-throttling included (default 60 000 ms). A wait that would pass it is not started. */
  readonly maxWaitMs?: number;
  /** Back-off base: retry n adds a random 0 to base × 2^n ms on top of the server's wait (default 500). */
  readonly baseDelayMs?: number;
  /** Cap of one back-off (default 30 000 ms). */
  readonly maxDelayMs?: number;
  /** Statuses that mean "slow down" and are retried (default 429 and 503). */
  readonly retryOn?: readonly number[];
  /**
   * Hold back while the last `RateLimit` (or `X-RateLimit-*`) header seen
   * says the quota is spent (default true). A `Retry-After` from an earlier
   * call is honoured either way.
   */
  readonly preThrottle?: boolean;
  /** What is remembered between calls (default: one Throttle shared by the module). */
  readonly throttle?: Throttle;
  /** Which requests share a memory (default: same origin). */
  readonly key?: (request: Request) => string;
  /** Called before each wait, with why. */
  readonly onWait?: (wait: { readonly ms: number; readonly attempt: number; readonly reason: "pre-throttle" | "retry" }) => void;
  /** Randomness, clock and timer (tests inject them). */
  readonly random?: () => number;
  readonly now?: () => number;
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** Thrown when the client gives up: the retry budget or the wait budget is spent. */
export class RateLimitError extends Error {
  override readonly name = "RateLimitError";
  /**
   * The last refusal (status 429 or 503; its body left unread), or
   * undefined when nothing was sent: an earlier `Retry-After` from the same
   * server had not passed and waiting it out would pass the wait budget.
   */
  readonly response: Response | undefined;
  /** Requests sent in this call. */
  readonly attempts: number;
  /** The wait the server asked for last, in ms (undefined when it named none). */
  readonly retryAfterMs: number | undefined;

  constructor(message: string, response: Response | undefined, attempts: number, retryAfterMs: number | undefined) {
    super(message);
    this.response = response;
    this.attempts = attempts;
    this.retryAfterMs = retryAfterMs;
  }
}

const shared = new Throttle();

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", abort);
      resolve();
    }, ms);
    const abort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", abort, { once: true });
  });
}

/**
 * `fetch(input, init)`, retried while the server says to slow down.
 * Resolves with the first response whose status is not in `retryOn`;
 * rejects with RateLimitError when the budget is spent (and with whatever
 * `fetch` rejects with, or the abort reason, as `fetch` would). The request
 * is cloned per attempt, so a body is sent again intact.
 *
 * @example
 * import { rateLimitedFetch, RateLimitError } from "floodgate/client";
 * try {
 *   const response = await rateLimitedFetch("https://api.example.com/v1/report", { method: "POST", body }, { maxRetries: 5 });
 * } catch (error) {
 *   if (error instanceof RateLimitError) console.log(`gave up after ${error.attempts} attempts`);
 * }
 */
export async function rateLimitedFetch(input: RequestInfo | URL, init?: RequestInit, options: RateLimitedFetchOptions = {}): Promise<Response> {
  const send = options.fetch ?? ((request: Request) => fetch(request));
  const maxRetries = options.maxRetries ?? 3;
  const maxWaitMs = options.maxWaitMs ?? 60_000;
  const retryOn = options.retryOn ?? [429, 503];
  const throttle = options.throttle ?? shared;
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? defaultSleep;
  const random = options.random ?? Math.random;
  const base = new Request(input, init);
  const key = (options.key ?? originKey)(base);
  let waited = 0;

  const hold = async (ms: number, attempt: number, reason: "pre-throttle" | "retry") => {
    options.onWait?.({ ms, attempt, reason });
    waited += ms;
    await sleep(ms, base.signal);
  };

  for (let attempt = 0; ; attempt++) {
    // A Retry-After from an earlier call is always honoured; a spent quota only with preThrottle.
    const held = throttle.hold(key, now());
    const ahead = held.told || options.preThrottle !== false ? held : { ms: 0, told: false };
    if (ahead.ms > 0 && waited + ahead.ms <= maxWaitMs) await hold(ahead.ms, attempt, "pre-throttle");
    else if (ahead.ms > 0 && ahead.told) {
      // The server said when; asking earlier would only earn another refusal.
      throw new RateLimitError(
        `${base.method} ${base.url}: the server asked to wait ${ahead.ms} ms more, past the wait budget of ${maxWaitMs} ms`,
        undefined,
        attempt,
        ahead.ms,
      );
    }
    // A spent quota's reset is only an upper bound: past the budget, ask anyway.
    const response = await send(base.clone());
    const refused = retryOn.includes(response.status);
    throttle.observe(key, response, refused, now());
    if (!refused) return response;
    const asked = serverWaitMs(response.headers, now());
    const sent = attempt + 1;
    if (attempt >= maxRetries) {
      throw new RateLimitError(
        `${base.method} ${base.url}: still ${response.status} after ${sent} attempts (retry budget: ${maxRetries} retries)`,
        response,
        sent,
        asked,
      );
    }
    const wait = (asked ?? 0) + jitteredBackoff(attempt, options.baseDelayMs ?? 500, options.maxDelayMs ?? 30_000, random);
    if (waited + wait > maxWaitMs) {
      throw new RateLimitError(
        `${base.method} ${base.url}: ${response.status}, and waiting ${wait} ms more would pass the wait budget of ${maxWaitMs} ms`,
        response,
        sent,
        asked,
      );
    }
    await response.body?.cancel();
    await hold(wait, attempt, "retry");
  }
}
