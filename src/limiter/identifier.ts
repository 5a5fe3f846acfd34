/**
 * One limit on one identifier, the shape the drop-ins speak (docs/from-upstash.md,
 * docs/from-cloudflare-binding.md, docs/from-hono-rate-limiter.md): the limit
 * becomes a one-descriptor rules document, compiled by the same compiler as
 * `rules.json`, and each identifier is decided by the same engine (`decide`),
 * through the same edge (block cache, coalescing) and counter objects.
 */
import type { AlgorithmName } from "../algorithms/types.ts";
import { counterKey, objectName, type ShardKey } from "../durable/counters/placement.ts";
import type { EdgeRuntime } from "../isolate/runtime.ts";
import type { Defer } from "../http/defer.ts";
import { compileRules } from "../rules/compile.ts";
import { isLongValue, longValueKey } from "../rules/match/long-values.ts";
import type { CompiledDomain, DomainDescriptors } from "../rules/types.ts";
import { IDENTIFIER_KEY } from "../stored/counter-ids.ts";
import { decide } from "./decide.ts";
import type { RateLimitResult } from "./types.ts";

// The descriptor key every identifier is counted under is a stored format (docs/stored-formats.md).
export { IDENTIFIER_KEY };

/** One limit, as the drop-ins' factories and options give it. */
export interface IdentifierLimit {
  readonly algorithm: AlgorithmName;
  /** Requests per window (`requests_per_unit`). */
  readonly tokens: number;
  /** A whole number of seconds, in milliseconds. */
  readonly windowMs: number;
  /** Bucket capacity, for the bucket algorithms (default: `tokens`). */
  readonly burst?: number;
  /** Statuses whose responses are charged (`count_when`): for a middleware that skips some responses. */
  readonly countWhen?: readonly string[];
}

/** A limit that does not compile: `message` says what is wrong, in the caller's own terms. */
export class IdentifierLimitError extends TypeError {
  override name = "IdentifierLimitError";
}

const UNITS: readonly (readonly [string, number])[] = [
  ["day", 86_400_000],
  ["hour", 3_600_000],
  ["minute", 60_000],
  ["second", 1_000],
];

/**
 * Compile `limit` into a domain named `domain` with one key-only descriptor,
 * so every identifier has a counter of its own. `what` names the limit in
 * errors (e.g. `Ratelimit.slidingWindow(10, "10 s")`).
 *
 * @example
 * const domain = identifierDomain("@upstash/ratelimit", { algorithm: "sliding_window_counter", tokens: 10, windowMs: 10_000 }, "slidingWindow");
 */
export function identifierDomain(domain: string, limit: IdentifierLimit, what: string): CompiledDomain {
  if (!Number.isInteger(limit.windowMs) || limit.windowMs < 1000 || limit.windowMs % 1000 !== 0) {
    throw new IdentifierLimitError(`${what}: the window must be a whole number of seconds (at least 1 s), got ${limit.windowMs} ms`);
  }
  const [unit, unitMs] = UNITS.find(([, ms]) => limit.windowMs % ms === 0) ?? UNITS[UNITS.length - 1];
  const rateLimit: Record<string, unknown> = {
    unit,
    unit_multiplier: limit.windowMs / unitMs,
    requests_per_unit: limit.tokens,
    algorithm: limit.algorithm,
  };
  if (limit.burst !== undefined) rateLimit.burst = limit.burst;
  if (limit.countWhen !== undefined) rateLimit.count_when = { status: limit.countWhen };
  const result = compileRules({ domain, descriptors: [{ key: IDENTIFIER_KEY, rate_limit: rateLimit }] }, { source: what });
  if (!result.ok) {
    const fields: Record<string, string> = { requests_per_unit: "the limit", unit_multiplier: "the window", burst: "the burst", domain: "the prefix" };
    const problems = result.errors.map((e) => {
      const field = /\.([a-z_]+)$/.exec(e.path)?.[1] ?? "";
      return `${fields[field] ?? field}: ${e.message}`;
    });
    throw new IdentifierLimitError(`${what}: ${problems.join("; ")}`);
  }
  const compiled = result.rules.domains.get(domain);
  if (compiled === undefined) throw new IdentifierLimitError(`${what}: the domain ${JSON.stringify(domain)} did not compile`);
  return compiled;
}

/**
 * The identifier as it is counted: itself, or, when it is longer than any
 * descriptor value may be, the same digest key a long value gets
 * (docs/rules.md, "Long values"). Not a string: a TypeError naming `what`.
 *
 * @example
 * await countedIdentifier("user-1", "limit()"); // "user-1"
 */
export async function countedIdentifier(identifier: unknown, what: string): Promise<string> {
  if (typeof identifier !== "string") throw new TypeError(`${what}: the identifier must be a string, got ${identifier === null ? "null" : typeof identifier}`);
  return isLongValue(identifier) ? longValueKey(identifier) : identifier;
}

/** How one identifier is decided. */
export interface IdentifierOptions {
  /** Hits to take (0 reads without consuming). */
  readonly cost: number;
  readonly timeoutMs: number;
  readonly defer: Defer;
}

/**
 * Decide `identifier` (already counted: see countedIdentifier) under
 * `domain`. Rejects with CounterUnavailableError as `decide` does.
 *
 * @example
 * const result = await decideIdentifier(edge, domain, "user-1", { cost: 1, timeoutMs: 1000, defer });
 */
export function decideIdentifier(edge: EdgeRuntime, domain: CompiledDomain, identifier: string, options: IdentifierOptions): Promise<RateLimitResult> {
  const request: DomainDescriptors = { domain, descriptors: [[{ key: IDENTIFIER_KEY, value: identifier }]] };
  return decide(edge, [request], { cost: options.cost, timeoutMs: options.timeoutMs, defer: options.defer });
}

/**
 * The counter key of `identifier` under `domain` and the name of the object
 * that owns it, for a reset.
 *
 * @example
 * const { key, object } = identifierCounter(domain, "user-1", edge.shardKey);
 * await env.COUNTERS.getByName(object).reset(key);
 */
export function identifierCounter(domain: CompiledDomain, identifier: string, shardKey: ShardKey): { key: string; object: string } {
  const key = counterKey(domain.domain, [{ key: IDENTIFIER_KEY, value: identifier }]);
  return { key, object: objectName(domain.domain, domain.placement, domain.shards, key, shardKey) };
}
