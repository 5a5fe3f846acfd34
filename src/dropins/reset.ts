/**
 * `reset` as Upstash ratelimit reports it (docs/from-upstash.md, "What differs"):
 * the window algorithms give the end of the current window, aligned to
 * multiples of the window since the epoch, allowed or refused; the token
 * bucket gives when its next token comes; floodgate's own algorithms give,
 * when allowed, when the full quota is back and, when refused, the first
 * instant the same request fits.
 */
import type { Decision } from "../algorithms/types.ts";
import type { Limiter } from "./limiters.ts";

/** What `reset` is read from: the most restrictive limit's decision, or none (a cached refusal). */
export type ResetSource = Pick<Decision, "allowed" | "resetAfterMs" | "retryAfterMs" | "effectiveWindowMs">;

/**
 * Milliseconds since the epoch that `limit()` and `getRemaining()` report
 * as `reset` for `decision`, made at `now`.
 *
 * @example
 * upstashReset(Ratelimit.slidingWindow(10, "10 s"), decision, 12_500); // 20_000: the end of the current window
 */
export function upstashReset(limiter: Limiter, decision: ResetSource, now: number): number {
  switch (limiter.algorithm) {
    case "fixed_window":
    case "sliding_window_counter":
      return windowEnd(now, limiter.windowMs);
    case "token_bucket": {
      // Upstash refills at whole intervals and reports the next one; this bucket refills a token at a time.
      const wait = decision.allowed ? decision.effectiveWindowMs : decision.retryAfterMs;
      return now + (Number.isFinite(wait) ? wait : limiter.windowMs);
    }
    default: {
      const wait = decision.allowed || !Number.isFinite(decision.retryAfterMs) ? decision.resetAfterMs : decision.retryAfterMs;
      return now + wait;
    }
  }
}

/**
 * The end of the window of length `windowMs` that holds `now`.
 *
 * @example
 * windowEnd(12_500, 10_000); // 20_000
 */
export function windowEnd(now: number, windowMs: number): number {
  return (Math.floor(now / windowMs) + 1) * windowMs;
}
