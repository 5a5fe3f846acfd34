/**
 * The algorithms `Ratelimit` takes as `limiter` (docs/from-upstash.md):
 * Upstash's three factories with Upstash's arguments, and floodgate's other
 * algorithms in the same shape. Each checks its arguments when called.
 */
import type { IdentifierLimit } from "../limiter/identifier.ts";
import { type Duration, durationMs } from "./duration.ts";

/** A limiter made by one of `Ratelimit`'s factories. */
export interface Limiter extends IdentifierLimit {
  /** The call that made it, for errors (e.g. `Ratelimit.slidingWindow(10, "10 s")`). */
  readonly describe: string;
}

function count(value: unknown, what: string, name: string): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
    throw new TypeError(`${what}: ${name} must be a whole number of at least 1, got ${JSON.stringify(value)}`);
  }
  return value;
}

function make(factory: string, args: readonly unknown[], limit: Omit<IdentifierLimit, "windowMs">, window: unknown): Limiter {
  const describe = `Ratelimit.${factory}(${args.map((a) => JSON.stringify(a)).join(", ")})`;
  return Object.freeze({ ...limit, windowMs: durationMs(window, describe), describe });
}

/**
 * `fixedWindow(tokens, window)`: `tokens` requests per window; each window
 * starts empty.
 *
 * @example
 * Ratelimit.fixedWindow(10, "10 s");
 */
export function fixedWindow(tokens: number, window: Duration): Limiter {
  const what = "Ratelimit.fixedWindow";
  return make("fixedWindow", [tokens, window], { algorithm: "fixed_window", tokens: count(tokens, what, "tokens") }, window);
}

/**
 * `slidingWindow(tokens, window)`: `tokens` requests per window, the
 * previous window weighted by how much of it still overlaps (Upstash's
 * sliding window, floodgate's `sliding_window_counter`).
 *
 * @example
 * Ratelimit.slidingWindow(10, "10 s");
 */
export function slidingWindow(tokens: number, window: Duration): Limiter {
  const what = "Ratelimit.slidingWindow";
  return make("slidingWindow", [tokens, window], { algorithm: "sliding_window_counter", tokens: count(tokens, what, "tokens") }, window);
}

/**
 * `tokenBucket(refillRate, interval, maxTokens)`: a bucket of `maxTokens`,
 * refilled by `refillRate` tokens every `interval`.
 *
 * @example
 * Ratelimit.tokenBucket(5, "10 s", 10);
 */
export function tokenBucket(refillRate: number, interval: Duration, maxTokens: number): Limiter {
  const what = "Ratelimit.tokenBucket";
  const limit = { algorithm: "token_bucket" as const, tokens: count(refillRate, what, "refillRate"), burst: count(maxTokens, what, "maxTokens") };
  return make("tokenBucket", [refillRate, interval, maxTokens], limit, interval);
}

/**
 * `slidingLog(tokens, window)`: exactly `tokens` requests in any window of
 * that length (one entry per request; at most 10,000 tokens).
 *
 * @example
 * Ratelimit.slidingLog(10, "1 m");
 */
export function slidingLog(tokens: number, window: Duration): Limiter {
  const what = "Ratelimit.slidingLog";
  return make("slidingLog", [tokens, window], { algorithm: "sliding_window_log", tokens: count(tokens, what, "tokens") }, window);
}

/**
 * `leakyBucket(rate, interval, capacity?)`: a queue of `capacity` (default
 * `rate`) drained at `rate` per `interval`.
 *
 * @example
 * Ratelimit.leakyBucket(10, "1 s", 20);
 */
export function leakyBucket(rate: number, interval: Duration, capacity?: number): Limiter {
  const what = "Ratelimit.leakyBucket";
  const burst = capacity === undefined ? undefined : count(capacity, what, "capacity");
  const args = capacity === undefined ? [rate, interval] : [rate, interval, capacity];
  return make("leakyBucket", args, { algorithm: "leaky_bucket", tokens: count(rate, what, "rate"), burst }, interval);
}

/**
 * `gcra(rate, interval, burst?)`: requests evenly spaced at `rate` per
 * `interval`, with up to `burst` (default `rate`) at once.
 *
 * @example
 * Ratelimit.gcra(10, "1 s", 5);
 */
export function gcra(rate: number, interval: Duration, burst?: number): Limiter {
  const what = "Ratelimit.gcra";
  const given = burst === undefined ? undefined : count(burst, what, "burst");
  const args = burst === undefined ? [rate, interval] : [rate, interval, burst];
  return make("gcra", args, { algorithm: "gcra", tokens: count(rate, what, "rate"), burst: given }, interval);
}

/** Whether `value` was made by one of the factories above. */
export function isLimiter(value: unknown): value is Limiter {
  return typeof value === "object" && value !== null && typeof (value as Limiter).describe === "string" && typeof (value as Limiter).algorithm === "string";
}
