/**
 * `new Ratelimit(config)`'s options (docs/from-upstash.md), checked once:
 * Upstash's names where they mean the same, `counters` in place of `redis`,
 * and a clear error naming any option floodgate does not take.
 */
import { isLimiter, type Limiter } from "./limiters.ts";

// biome-ignore lint/suspicious/noExplicitAny: a namespace of the user's bindings, typed or not.
type Namespace = DurableObjectNamespace<any>;

/** The options of `new Ratelimit(config)`. */
export interface RatelimitConfig {
  /** The CounterObject namespace (e.g. `env.COUNTERS`): where the counts live, in place of Upstash's `redis`. */
  readonly counters: Namespace;
  /** The algorithm and its limit: `Ratelimit.slidingWindow(10, "10 s")` and the other factories. */
  readonly limiter: Limiter;
  /** Counters are kept apart per prefix (a rules domain of that name). Default `"@upstash/ratelimit"`. */
  readonly prefix?: string;
  /** Milliseconds to wait for the counter before letting the request through with `reason: "timeout"`; 0: no timeout. Default 5000. */
  readonly timeout?: number;
  /**
   * Refused identifiers remembered until they would fit, answered without a
   * counter call (`reason: "cacheBlock"`): a `Map` kept at module scope
   * serves every `Ratelimit` made with it; `false` turns it off. Default: a
   * cache of this instance's own.
   */
  readonly ephemeralCache?: Map<string, number> | false;
  /** Count every decision in floodgate's metrics (`GET /__ratelimit/metrics`) when `metrics` is given too; without it nothing is kept. Default false. */
  readonly analytics?: boolean;
  /** The MetricsObject namespace (e.g. `env.METRICS`), where `analytics` counts. */
  readonly metrics?: Namespace;
}

/** The checked options. */
export interface RatelimitSettings {
  readonly counters: Namespace;
  readonly limiter: Limiter;
  readonly prefix: string;
  readonly timeoutMs: number;
  readonly blockCache: boolean;
  /** The user's `ephemeralCache` Map, when one was given. */
  readonly ephemeral?: Map<string, number>;
  readonly metrics?: Namespace;
}

const KNOWN = ["counters", "limiter", "prefix", "timeout", "ephemeralCache", "analytics", "metrics"];

/** Upstash options floodgate does not take, and why. */
const UNSUPPORTED: Readonly<Record<string, string>> = {
  redis: "floodgate keeps the counts in its CounterObject: replace `redis` with `counters` (the CounterObject namespace, e.g. env.COUNTERS)",
  enableProtection: "deny lists (Upstash's traffic protection) are not supported by floodgate/limiter",
  denyListThreshold: "deny lists (Upstash's traffic protection) are not supported by floodgate/limiter",
  dynamicLimits: "dynamic limits are not supported by floodgate/limiter: make a new Ratelimit with the new limiter",
  ctx: "floodgate/limiter takes no `ctx`: pass `counters`",
};

/** Longest wait for a counter that means "no timeout" (timers take at most 2^31 - 1 ms). */
const NO_TIMEOUT_MS = 2_147_483_647;

/**
 * Check `config`; throws a TypeError naming the first option that is
 * unknown, unsupported or invalid.
 *
 * @example
 * ratelimitSettings({ counters: env.COUNTERS, limiter: Ratelimit.slidingWindow(10, "10 s") }).timeoutMs; // 5000
 */
export function ratelimitSettings(config: RatelimitConfig): RatelimitSettings {
  if (typeof config !== "object" || config === null) throw new TypeError("new Ratelimit(): expected an options object");
  for (const key of Object.keys(config)) {
    if (Object.hasOwn(UNSUPPORTED, key)) throw new TypeError(`new Ratelimit(): option "${key}" is not supported: ${UNSUPPORTED[key]}`);
    if (!KNOWN.includes(key)) throw new TypeError(`new Ratelimit(): unknown option "${key}"; the options are ${KNOWN.join(", ")}`);
  }
  const { counters, limiter, prefix = "@upstash/ratelimit", timeout = 5000, ephemeralCache, analytics = false, metrics } = config;
  if (counters === undefined || typeof (counters as { getByName?: unknown }).getByName !== "function") {
    throw new TypeError("new Ratelimit(): counters must be the CounterObject namespace (e.g. env.COUNTERS)");
  }
  if (!isLimiter(limiter)) throw new TypeError('new Ratelimit(): limiter must come from a factory, e.g. Ratelimit.slidingWindow(10, "10 s")');
  if (typeof prefix !== "string" || prefix === "") throw new TypeError(`new Ratelimit(): prefix must be a non-empty string, got ${JSON.stringify(prefix)}`);
  if (!Number.isInteger(timeout) || timeout < 0 || timeout > 600_000) {
    throw new TypeError(`new Ratelimit(): timeout must be a whole number of milliseconds from 0 to 600000, got ${JSON.stringify(timeout)}`);
  }
  if (ephemeralCache !== undefined && ephemeralCache !== false && !(ephemeralCache instanceof Map)) {
    throw new TypeError("new Ratelimit(): ephemeralCache must be a Map or false");
  }
  if (typeof analytics !== "boolean") throw new TypeError(`new Ratelimit(): analytics must be true or false, got ${JSON.stringify(analytics)}`);
  if (metrics !== undefined && typeof (metrics as { getByName?: unknown }).getByName !== "function") {
    throw new TypeError("new Ratelimit(): metrics must be the MetricsObject namespace (e.g. env.METRICS)");
  }
  return {
    counters,
    limiter,
    prefix,
    timeoutMs: timeout === 0 ? NO_TIMEOUT_MS : timeout,
    blockCache: ephemeralCache !== false,
    ...(ephemeralCache instanceof Map ? { ephemeral: ephemeralCache } : {}),
    ...(analytics && metrics !== undefined ? { metrics } : {}),
  };
}
