/**
 * What the worker sends a CounterObject and what it answers. Plain data, so
 * it crosses the RPC boundary by structured clone.
 */
import type { AlgorithmName, Decision } from "../algorithms/types.ts";

/** One limit to enforce on a counter, as the algorithms need it. */
export interface LimitCall {
  /** Stable identity of the limit's configuration (CompiledLimit.id). */
  readonly id: string;
  readonly algorithm: AlgorithmName;
  readonly limit: number;
  readonly windowMs: number;
  readonly burst: number;
}

/** One hit (or several, via `cost`) against one counter key and all its windows. */
export interface CounterCall {
  /** Unambiguous counter key (see `counterKey`). */
  readonly key: string;
  readonly limits: readonly LimitCall[];
  /** Hits to add; 0 reads the counter without consuming. */
  readonly cost: number;
  /**
   * Edge pre-counting flush: the hits were already allowed at the edge, so
   * take them one by one while they fit instead of all-or-nothing, and report
   * how many fitted in `accepted` (the rest is the edge's overshoot).
   */
  readonly partial?: boolean;
}

/** The object's answer to one CounterCall. */
export interface CounterVerdict {
  /** True only if every window allowed; then every window consumed `cost`. */
  readonly allowed: boolean;
  /** One decision per `limits` entry, same order. */
  readonly decisions: readonly Decision[];
  /** For `partial` calls: how many of the hits fitted. */
  readonly accepted?: number;
}
