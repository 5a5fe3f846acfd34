/**
 * `rateLimit()`'s options, checked and turned into what an isolate is made
 * of once, when the middleware is made (docs/hono.md).
 */
// @ts-nocheck

import type { Context } from "hono";
import type { Settings } from "../config.ts";
import { DEFAULT_HEADER_DIALECT, HEADER_DIALECTS, type HeaderDialect, isHeaderDialect } from "../http/header-dialect.ts";
import { compileRules } from "../rules/compile.ts";
import type { CompiledRules } from "../rules/types.ts";

/** The context the option functions get: any app's, whatever its bindings are called. */
// biome-ignore lint/suspicious/noExplicitAny: the user's own Env type is not known here.
export type AnyContext = Context<any>;
// biome-ignore lint/suspicious/noExplicitAny: a namespace of the user's bindings, typed or not.
type Namespace = DurableObjectNamespace<any>;

/** Where the middleware's rules come from: compiled once, or per request. */
export type RulesSource = (c: AnyContext) => CompiledRules | Promise<CompiledRules>;

export interface RateLimitOptions {
  /**
   * A rules document (the contents of a `rules.json`: one domain document or
   * an array of them), compiled once when the middleware is made; invalid
   * rules throw a RulesError listing every error with its JSON path. Also
   * accepted: rules already compiled (`compileRules(json).rules`), or a
   * function of the request's context returning them, for rules that change.
   */
  readonly rules: unknown;
  /** The CounterObject namespace. Default: `(c) => c.env.COUNTERS`. */
  readonly counters?: (c: AnyContext) => Namespace;
  /** The MetricsObject namespace, to keep metrics. Default: none are kept. */
  readonly metrics?: (c: AnyContext) => Namespace | undefined;
  /** When a counter cannot be asked in time: `"open"` lets the request through, `"closed"` answers 503. Default `"open"`. */
  readonly failureMode?: "open" | "closed";
  /** Milliseconds to wait for a counter before `failureMode` applies. Default 1000. */
  readonly timeoutMs?: number;
  /** Proxies of yours in front of Cloudflare whose `X-Forwarded-For` entries are trusted. Default 0. */
  readonly trustedProxyHops?: number;
  /** Count every limit, block none (Envoy's SHADOW_MODE). Default false. */
  readonly shadowMode?: boolean;
  /** The rate-limit header dialect: `"draft-11"`, `"draft-7"`, `"draft-6"` or `"none"` (docs/headers.md). Default `"draft-11"`. */
  readonly headers?: HeaderDialect;
}

/** Rules given to `rateLimit()` that do not validate; `errors` has each with its JSON path. */
export class RulesError extends Error {
  readonly errors: readonly { readonly path: string; readonly message: string }[];
  constructor(errors: readonly { readonly path: string; readonly message: string }[]) {
    super(`rateLimit(): the rules are invalid:\n${errors.map((e) => `${e.path}: ${e.message}`).join("\n")}`);
    this.name = "RulesError";
    this.errors = errors;
  }
}

/**
 * The rules option as a per-request source: a document is compiled here,
 * once, and throws RulesError when it does not validate.
 *
 * @example
 * const rulesOf = rulesSource({ domain: "api", descriptors: [] });
 */
export function rulesSource(rules: unknown): RulesSource {
  if (typeof rules === "function") return rules as RulesSource;
  if (isCompiled(rules)) return () => rules;
  const result = compileRules(rules, { source: "rateLimit() rules" });
  if (!result.ok) throw new RulesError(result.errors);
  const compiled = result.rules;
  return () => compiled;
}

function isCompiled(rules: unknown): rules is CompiledRules {
  return typeof rules === "object" && rules !== null && (rules as { domains?: unknown }).domains instanceof Map;
}

/**
 * The settings an isolate of the middleware runs with, every option checked.
 *
 * @example
 * settingsFromOptions({ rules, failureMode: "closed" }).decisionTimeoutMs; // 1000
 */
export function settingsFromOptions(options: RateLimitOptions): Settings {
  const failureMode = options.failureMode ?? "open";
  if (failureMode !== "open" && failureMode !== "closed") {
    throw new TypeError(`rateLimit(): failureMode must be "open" or "closed", got ${JSON.stringify(failureMode)}`);
  }
  const headerDialect = options.headers ?? DEFAULT_HEADER_DIALECT;
  if (!isHeaderDialect(headerDialect)) {
    throw new TypeError(`rateLimit(): headers must be one of ${HEADER_DIALECTS.map((d) => `"${d}"`).join(", ")}, got ${JSON.stringify(headerDialect)}`);
  }
  return {
    failureMode,
    headerDialect,
    decisionTimeoutMs: whole(options.timeoutMs, "timeoutMs", 1000, 1, 60_000),
    shadowMode: flag(options.shadowMode, "shadowMode"),
    metricsFlushMs: 5000,
    trustedProxyHops: whole(options.trustedProxyHops, "trustedProxyHops", 0, 0, 16),
    queueMaxAttempts: 5,
    queueRetryBaseSeconds: 10,
  };
}

function whole(value: number | undefined, name: string, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`rateLimit(): ${name} must be a whole number from ${min} to ${max}, got ${JSON.stringify(value)}`);
  }
  return value;
}

function flag(value: boolean | undefined, name: string): boolean {
  if (value === undefined) return false;
  if (typeof value !== "boolean") throw new TypeError(`rateLimit(): ${name} must be true or false, got ${JSON.stringify(value)}`);
  return value;
}
