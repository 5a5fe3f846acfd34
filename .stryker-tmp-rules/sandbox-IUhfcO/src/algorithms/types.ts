/**
 * The contract every rate-limit algorithm honours.
 *
 * Algorithms are pure: `(state, limit, now, cost) -> { state, decision }`.
 * They never read a clock or touch storage, so tests drive time exactly and
 * the Durable Object decides when to persist.
 */
// @ts-nocheck


/** Names of the algorithms a rate limit may select in `rules.json`. */
export type AlgorithmName = "token_bucket" | "leaky_bucket" | "fixed_window" | "sliding_window_log" | "sliding_window_counter" | "gcra";

/** One limit in the integer units the algorithms work in. */
export interface LimitSpec {
  /** Requests allowed per window (`requests_per_unit`); 0 means always over limit. */
  readonly limit: number;
  /** Window length in milliseconds (unit × unit_multiplier). */
  readonly windowMs: number;
  /** Bucket capacity for token_bucket, leaky_bucket and gcra; equals `limit` elsewhere. */
  readonly burst: number;
}

/**
 * The single result shape (after Upstash ratelimit). All times are
 * milliseconds relative to `now`.
 */
export interface Decision {
  /** Whether this request fits. A rejected request consumes nothing. */
  readonly allowed: boolean;
  /** The policy's quota per window (`requests_per_unit`). */
  readonly limit: number;
  /** Whole requests still available right after this decision. */
  readonly remaining: number;
  /** Time until the full quota is available again if no more requests arrive. */
  readonly resetAfterMs: number;
  /**
   * 0 when allowed. When rejected: the exact wait after which the same
   * request (same cost) would be allowed if nothing else arrives; one
   * millisecond earlier it would still be rejected. `Infinity` when the
   * request can never fit (limit 0, or cost above the capacity).
   */
  readonly retryAfterMs: number;
  /**
   * How long from now the client can use no more than `remaining` (the
   * effective window of draft-ietf-httpapi-ratelimit-headers-11, see
   * docs/headers.md): the wait, after spending all of `remaining` at once,
   * until one more hit would fit. Spending fewer, or later, never frees a
   * hit sooner. `Infinity` when nothing ever fits (limit 0, or burst 0).
   */
  readonly effectiveWindowMs: number;
}

/** What an algorithm step returns: the state to keep, and the decision. */
export interface Step<S> {
  readonly state: S;
  readonly decision: Decision;
}

/** A rate-limit algorithm as a module of pure functions. */
export interface Algorithm<S> {
  readonly name: AlgorithmName;
  /**
   * Decide one request of `cost` hits at time `now` (ms since epoch, integer).
   * `state` is `undefined` for a counter never seen (or cleaned up).
   * A rejected request returns a state equivalent to the input state.
   * `cost` 0 peeks: it reports the counter without consuming.
   */
  decide(state: S | undefined, limit: LimitSpec, now: number, cost: number): Step<S>;
  /**
   * The first instant (ms since epoch) from which `state` is equivalent to no
   * state at all, so the counter may be dropped from memory and storage.
   */
  idleAt(state: S, limit: LimitSpec): number;
}
