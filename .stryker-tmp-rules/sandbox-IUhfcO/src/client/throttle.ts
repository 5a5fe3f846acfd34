/**
 * What the client remembers between calls: per server (scheme, host and
 * port by default), the instant before which it should not send, learned
 * from the last `Retry-After` or spent `RateLimit` quota it saw. Sharing one
 * Throttle between callers makes them all hold back together.
 */
// @ts-nocheck

import { quotaHint, serverWaitMs } from "./headers.ts";

/**
 * Per-key "not before" instants.
 *
 * @example
 * const throttle = new Throttle();
 * await rateLimitedFetch(url, {}, { throttle });
 */
export class Throttle {
  private readonly notBefore = new Map<string, { until: number; told: boolean }>();

  /**
   * How long to hold back before sending to `key` (0: send now), and whether
   * the server itself said so (`Retry-After`) rather than a spent quota
   * suggesting it (a quota's reset is when all of it is back, often later
   * than the next request would fit).
   *
   * @example
   * throttle.hold("https://api.example.com", Date.now()); // { ms: 0, told: false }
   */
  hold(key: string, now: number): { ms: number; told: boolean } {
    const entry = this.notBefore.get(key);
    if (entry === undefined) return { ms: 0, told: false };
    if (entry.until <= now) {
      this.notBefore.delete(key);
      return { ms: 0, told: false };
    }
    return { ms: entry.until - now, told: entry.told };
  }

  /**
   * Learn from a response received at `now`: a refusal's wait, or a spent
   * quota's reset; a response with quota left clears the key.
   *
   * @example
   * throttle.observe(key, response, refused, Date.now());
   */
  observe(key: string, response: Response, refused: boolean, now: number): void {
    const wait = refused ? serverWaitMs(response.headers, now) : undefined;
    const hint = quotaHint(response.headers, now);
    if (wait !== undefined) this.extend(key, now + wait, true);
    else if (hint !== undefined && hint.remaining === 0) this.extend(key, now + hint.resetMs, false);
    else if (hint !== undefined) this.notBefore.delete(key);
  }

  private extend(key: string, until: number, told: boolean): void {
    const entry = this.notBefore.get(key);
    if (entry === undefined || until >= entry.until) this.notBefore.set(key, { until, told: told || (entry?.told ?? false) });
  }
}

/**
 * The default key: the request's origin (scheme, host and port).
 *
 * @example
 * originKey(new Request("https://api.example.com/v1/users")); // "https://api.example.com"
 */
export function originKey(request: Request): string {
  return new URL(request.url).origin;
}

/**
 * One back-off with full jitter: a random share of base × 2^attempt, capped.
 *
 * @example
 * jitteredBackoff(2, 500, 30_000, () => 0.5); // 1000
 */
export function jitteredBackoff(attempt: number, baseMs: number, capMs: number, random: () => number): number {
  return Math.floor(random() * Math.min(capMs, baseMs * 2 ** attempt));
}
