/**
 * `Ratelimit`: Upstash ratelimit's surface over floodgate's counters
 * (docs/from-upstash.md). Each identifier is one descriptor of a one-limit
 * domain named by `prefix`, decided by the engine the gateway uses, through
 * this instance's edge (block cache, coalescing) and the counter objects.
 */
import { DEFAULT_SETTINGS, type Env } from "../config.ts";
import { EdgeRuntime } from "../isolate/runtime.ts";
import type { Defer } from "../http/defer.ts";
import { admitDescriptors, type Engine, identifierRequest, MetricsRecorder } from "../admission/index.ts";
import { countedIdentifier, decideIdentifier, identifierCounter, identifierDomain } from "../limiter/identifier.ts";
import type { RateLimitResult } from "../limiter/types.ts";
import type { CompiledDomain } from "../rules/types.ts";
import { fixedWindow, gcra, leakyBucket, slidingLog, slidingWindow, tokenBucket } from "./limiters.ts";
import { EphemeralBlocks } from "./ephemeral.ts";
import { type RatelimitConfig, type RatelimitSettings, ratelimitSettings } from "./options.ts";
import { type ResetSource, upstashReset } from "./reset.ts";

/** What `limit()` answers, as Upstash's `RatelimitResponse`. */
export interface RatelimitResponse {
  /** Whether the request may pass. */
  readonly success: boolean;
  /** Requests per window; for the bucket algorithms, the bucket's capacity (`maxTokens`), as Upstash reports it. */
  readonly limit: number;
  /** Requests left right after this one. */
  readonly remaining: number;
  /** Milliseconds since the epoch, as Upstash reports it: the end of the current window for `fixedWindow` and `slidingWindow`, the next token for `tokenBucket` (docs/from-upstash.md). */
  readonly reset: number;
  /** Background work of this decision (metrics, counter syncs): hand it to `ctx.waitUntil`. */
  pending: Promise<unknown>;
  /** `"timeout"`: the counter did not answer in time and the request was let through; `"cacheBlock"`: refused from this isolate's block cache. */
  readonly reason?: "timeout" | "cacheBlock";
}

/** The second argument of `limit()`; only `rate` counts here (the others feed Upstash's deny lists). */
export interface LimitOptions {
  /** Tokens this request takes (a cost); default 1. */
  readonly rate?: number;
  readonly ip?: string;
  readonly userAgent?: string;
  readonly country?: string;
  readonly geo?: unknown;
}

/** The gateway's default pace (docs/metrics.md, "Freshness"): a batch per 30 s or 1,000 requests, none when idle. */
const METRICS_FLUSH_MS = DEFAULT_SETTINGS.metricsFlushMs;

/**
 * A rate limiter with Upstash's API over the CounterObject namespace. Make
 * it once per isolate (module scope) so its block cache and batching carry
 * over between requests.
 *
 * @example
 * import { env } from "cloudflare:workers";
 * const ratelimit = new Ratelimit({ counters: env.COUNTERS, limiter: Ratelimit.slidingWindow(10, "10 s") });
 * const { success, pending } = await ratelimit.limit(userId);
 * ctx.waitUntil(pending);
 */
export class Ratelimit {
  static readonly fixedWindow = fixedWindow;
  static readonly slidingWindow = slidingWindow;
  static readonly tokenBucket = tokenBucket;
  /** Upstash's cached fixed window: every limiter here has the block cache, so this is `fixedWindow`. */
  static readonly cachedFixedWindow = fixedWindow;
  static readonly slidingLog = slidingLog;
  static readonly leakyBucket = leakyBucket;
  static readonly gcra = gcra;

  private readonly domain: CompiledDomain;
  private readonly settings: RatelimitSettings;
  /** What `limit` reports: the tokens per window, or a bucket's capacity (Upstash's `maxTokens`). */
  private readonly reportedLimit: number;
  private readonly now: () => number;
  private readonly ephemeral?: EphemeralBlocks;
  /** Made on first use, not in the constructor: a Worker may make its Ratelimit at module scope, where no I/O or randomness is allowed. */
  /** What the admission pipeline decides with: made on first use, not in the constructor (see `started`). */
  private runtime?: Engine;

  /** `clock.now`: the clock the answers' `reset` and the block cache read (default `Date.now`); tests drive it, with the counter objects on the same clock. */
  constructor(config: RatelimitConfig, clock: { readonly now?: () => number } = {}) {
    const settings = ratelimitSettings(config);
    this.settings = settings;
    this.domain = identifierDomain(settings.prefix, settings.limiter, settings.limiter.describe);
    this.reportedLimit = settings.limiter.burst ?? settings.limiter.tokens;
    this.now = clock.now ?? Date.now;
    if (settings.ephemeral !== undefined) this.ephemeral = new EphemeralBlocks(settings.ephemeral, settings.prefix);
  }

  private get edge(): EdgeRuntime {
    return this.started().edge;
  }

  private started(): Engine {
    if (this.runtime !== undefined) return this.runtime;
    const s = this.settings;
    const edge = new EdgeRuntime(s.counters as Env["COUNTERS"], {
      now: this.now,
      decisionTimeoutMs: s.timeoutMs,
      ...(s.blockCache ? {} : { blockCacheBytes: 0 }),
    });
    const metrics = s.metrics === undefined ? undefined : new MetricsRecorder(s.metrics as Env["METRICS"], METRICS_FLUSH_MS, edge.shardKey, this.now);
    // Upstash's failure mode: a counter that does not answer in time lets the request through.
    this.runtime = { edge, ...(metrics === undefined ? {} : { metrics }), settings: { failureMode: "open" } };
    return this.runtime;
  }

  /**
   * Take `rate` (default 1) tokens for `identifier`, if they fit.
   *
   * @example
   * const { success, limit, remaining, reset, pending } = await ratelimit.limit("user-1", { rate: 2 });
   */
  readonly limit = async (identifier: string, request?: LimitOptions): Promise<RatelimitResponse> => {
    const cost = request?.rate ?? 1;
    if (!Number.isInteger(cost) || cost < 0) throw new TypeError(`Ratelimit.limit(): rate must be a whole number of at least 0, got ${JSON.stringify(cost)}`);
    const id = await countedIdentifier(identifier, "Ratelimit.limit()");
    const engine = this.started();
    const { edge } = engine;
    const { defer, pending } = collect();
    const sentAt = this.now();
    const until = cost > 0 ? this.ephemeral?.blockedUntil(id, sentAt) : undefined;
    if (until !== undefined) {
      const reset = upstashReset(
        this.settings.limiter,
        { allowed: false, resetAfterMs: until - sentAt, retryAfterMs: until - sentAt, effectiveWindowMs: until - sentAt },
        sentAt,
      );
      return { success: false, limit: this.reportedLimit, remaining: 0, reset, pending: pending(), reason: "cacheBlock" };
    }
    const cachedBefore = edge.stats.cachedBlocks;
    const options = { cost, timeoutMs: this.settings.timeoutMs, defer, where: () => ({ prefix: this.domain.domain }) };
    const deciding = admitDescriptors(engine, identifierRequest(this.domain, id), options, defer);
    // The block cache answers in the synchronous part of the call, so the count moved only for this one.
    const cached = edge.stats.cachedBlocks > cachedBefore;
    const result = await deciding;
    // Upstash lets a request through when its store times out, and says so.
    if (result.reason === "failure_open") return { success: true, limit: 0, remaining: 0, reset: 0, pending: pending(), reason: "timeout" };
    // A refusal of one token is certain until it would fit, whatever else happens (a refusal takes nothing).
    if (!result.allowed && cost === 1 && Number.isFinite(result.retryAfterMs)) this.ephemeral?.block(id, sentAt + result.retryAfterMs);
    const answer: RatelimitResponse = {
      success: result.allowed,
      limit: this.reportedLimit,
      remaining: result.remaining,
      reset: upstashReset(this.settings.limiter, decisionOf(result), this.now()),
      pending: pending(),
    };
    return cached ? { ...answer, reason: "cacheBlock" } : answer;
  };

  /**
   * Wait until `identifier` may pass (its tokens taken) or `timeout`
   * milliseconds have passed (then `success` is false).
   *
   * @example
   * const { success } = await ratelimit.blockUntilReady("user-1", 30_000);
   */
  readonly blockUntilReady = async (identifier: string, timeout: number): Promise<RatelimitResponse> => {
    if (typeof timeout !== "number" || !(timeout > 0))
      throw new TypeError(`Ratelimit.blockUntilReady(): timeout must be positive, got ${JSON.stringify(timeout)}`);
    const deadline = this.now() + timeout;
    for (;;) {
      const response = await this.limit(identifier);
      if (response.success) return response;
      const wait = Math.min(response.reset, deadline) - this.now();
      if (wait <= 0) return response;
      await scheduler.wait(wait);
      if (this.now() >= deadline) return this.limit(identifier);
    }
  };

  /**
   * Read `identifier`'s counter without taking anything.
   *
   * @example
   * const { remaining, reset, limit } = await ratelimit.getRemaining("user-1");
   */
  readonly getRemaining = async (identifier: string): Promise<{ remaining: number; reset: number; limit: number }> => {
    const id = await countedIdentifier(identifier, "Ratelimit.getRemaining()");
    const result = await decideIdentifier(this.edge, this.domain, id, { cost: 0, timeoutMs: this.settings.timeoutMs, defer: ignore });
    return { remaining: result.remaining, reset: upstashReset(this.settings.limiter, decisionOf(result), this.now()), limit: this.reportedLimit };
  };

  /**
   * Forget everything `identifier` used: its next request starts a full quota.
   *
   * @example
   * await ratelimit.resetUsedTokens("user-1");
   */
  readonly resetUsedTokens = async (identifier: string): Promise<void> => {
    const id = await countedIdentifier(identifier, "Ratelimit.resetUsedTokens()");
    const { edge } = this.started();
    const { key, object } = identifierCounter(this.domain, id, edge.shardKey);
    await (this.settings.counters as Env["COUNTERS"]).getByName(object).reset(key);
    edge.blocks.forget(key);
    this.ephemeral?.forget(id);
  };
}

const ignore: Defer = () => undefined;

// The most restrictive limit's own decision (the only limit here), or the summary's times when none applied.
function decisionOf(result: RateLimitResult): ResetSource {
  return (
    result.policy?.decision ?? {
      allowed: result.allowed,
      resetAfterMs: result.resetAfterMs,
      retryAfterMs: result.retryAfterMs,
      effectiveWindowMs: result.resetAfterMs,
    }
  );
}

// Background work of one decision, gathered into the `pending` promise the caller hands to waitUntil.
function collect(): { defer: Defer; pending: () => Promise<unknown> } {
  const work: Promise<unknown>[] = [];
  const defer: Defer = (promise) => {
    work.push(promise.catch((error: unknown) => console.error(JSON.stringify({ event: "ratelimit.pending_failed", error: String(error) }))));
  };
  return { defer, pending: () => Promise.all(work) };
}
