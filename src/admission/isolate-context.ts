/**
 * The per-isolate context: what one isolate keeps between requests (the
 * settings read from `env`, its rules source, the edge runtime in front of
 * the counter objects, the metrics recorder). src/worker.ts makes it once and
 * passes it down; no module of ours keeps per-isolate state of its own, so
 * no caller's options can decide another caller's.
 */
import { sampleSettings } from "../advisor/sample-settings.ts";
import { TrafficSampler } from "../advisor/sampler.ts";
import { countersIn, readSettings, type Env, type Settings } from "../config.ts";
import { EdgeRuntime } from "../isolate/runtime.ts";
import type { Defer } from "../http/defer.ts";
import { MetricsRecorder } from "../metrics/recorder.ts";
import type { LiveRules } from "../isolate/live-rules.ts";
import type { CompiledRules } from "../rules/types.ts";

/**
 * What an isolate is made of: its settings and the counter (and metrics)
 * namespaces, which the gateway reads from `env` and `rateLimit()` from its
 * options, and `env` itself for the features only the gateway has (admin
 * API, queue, rules uploads).
 */
export interface IsolateParts {
  /** floodgate's own bindings (RULES, QUEUE, …): the gateway's env; none for a middleware (EMPTY_ENV). */
  readonly env: Env;
  /** Where a secret the rules name is read (a `jwt` HS256 key): the gateway's env, a middleware's app env. Default `env`. */
  readonly secrets?: object;
  readonly settings: Settings;
  readonly counters: Env["COUNTERS"];
  /** Absent: no metrics are kept. */
  readonly metrics?: Env["METRICS"];
}

/**
 * The parts of the gateway's isolate, all read from `env`. Throws
 * ConfigError when a `[vars]` value is invalid (the gateway answers 503
 * naming it).
 *
 * @example
 * const isolate = new Isolate(partsFromEnv(env), new LiveRules(bundledRules));
 */
export function partsFromEnv(env: Env): IsolateParts {
  const settings = readSettings(env);
  return { env, settings, counters: countersIn(env.COUNTERS, settings), metrics: env.METRICS };
}

/**
 * One isolate's state. `R` is where its rules come from: the gateway's live
 * rules (`LiveRules`, following uploads), or the rules a `rateLimit()`
 * middleware was given.
 *
 * @example
 * const isolate = new Isolate(partsFromEnv(env), new LiveRules(bundledRules));
 * const rules = await isolate.currentRules(defer);
 * const result = await admitDescriptors(isolate, requestDescriptors(rules, request, isolate.settings), { timeoutMs: isolate.settings.decisionTimeoutMs }, defer);
 */
export class Isolate<R = LiveRules> {
  readonly env: Env;
  /** Where a secret the rules name is read (IsolateParts.secrets). */
  readonly secrets: object;
  readonly settings: Settings;
  /** The counter objects' namespace (in COUNTERS_JURISDICTION when set). */
  readonly counters: Env["COUNTERS"];
  readonly rules: R;
  readonly edge: EdgeRuntime;
  readonly metrics: MetricsRecorder;
  /** The edge's clock (`options.now`, default `Date.now`), for times an answer reports. */
  readonly now: () => number;

  constructor(parts: IsolateParts, rules: R, options: IsolateOptions = {}) {
    this.env = parts.env;
    this.secrets = parts.secrets ?? parts.env;
    this.now = options.now ?? Date.now;
    this.settings = parts.settings;
    this.counters = parts.counters;
    this.rules = rules;
    this.edge = new EdgeRuntime(parts.counters, {
      coalesce: options.coalesce ?? true,
      now: this.now,
      decisionTimeoutMs: this.settings.decisionTimeoutMs,
      shardSecret: this.settings.shardKey,
    });
    // The traffic sample (docs/advisor.md, "Sample") rides with the metrics sends.
    const sampler = new TrafficSampler(sampleSettings(this.settings), this.now, this.edge.shardKey);
    this.metrics = new MetricsRecorder(parts.metrics, this.settings.metricsFlushMs, this.edge.shardKey, this.now, undefined, sampler);
    // Said once, when the isolate starts; every admin request is answered 503 with it.
    if (this.settings.adminTokenRefused !== undefined) console.error(`floodgate: ${this.settings.adminTokenRefused}`);
  }

  /**
   * The rules to decide a request with: synchronous on the hot path, a
   * promise only while this isolate must wait for a version check.
   *
   * @example
   * const rules = await isolate.currentRules(defer);
   */
  currentRules(this: Isolate<LiveRules>, defer: Defer): CompiledRules | Promise<CompiledRules> {
    return this.rules.current(this.env, this.settings.decisionTimeoutMs, defer);
  }
}

/**
 * The env of an isolate that has none of floodgate's bindings or `[vars]`
 * (a middleware's): features that need one (the queue) find it missing,
 * and no name of a user's own env is ever read as floodgate's.
 */
export const EMPTY_ENV: Env = Object.freeze({}) as Env;

/** How an isolate's edge is built, for what `env` does not choose. */
export interface IsolateOptions {
  /**
   * Batch concurrent calls to one counter object (default `true`). Off only
   * where a test or the bench measures what coalescing buys; no `[vars]`
   * value turns it off in a deployment.
   */
  readonly coalesce?: boolean;
  /** The edge's clock (default `Date.now`): tests drive it, with the counter objects on the same clock. */
  readonly now?: () => number;
}

/** The context of the isolate serving `env`. */
export type IsolateOf<R = LiveRules> = (env: Env) => Isolate<R>;

/**
 * The one place an isolate's context is made: on its first request, from
 * that request's `env` (the runtime passes the same object to every request
 * of an isolate). A different `env` object (a test's own variables) gets a
 * context of its own. An `env` whose settings are invalid gets none: every
 * request throws the same ConfigError until it is fixed. `partsOf` says what
 * an isolate is made of (default: everything from `env`, as the gateway does).
 *
 * @example
 * const isolateOf = isolateContexts(new LiveRules(bundledRules, { bundledJson: rulesJson }));
 * export default { fetch: (request, env, ctx) => createApp(isolateOf).fetch(request, env, ctx) };
 */
export function isolateContexts<R>(rules: R, options: IsolateOptions = {}, partsOf: (env: Env) => IsolateParts = partsFromEnv): IsolateOf<R> {
  const made = new WeakMap<Env, Isolate<R>>();
  return (env) => {
    let isolate = made.get(env);
    if (isolate === undefined) made.set(env, (isolate = new Isolate(partsOf(env), rules, options)));
    return isolate;
  };
}
