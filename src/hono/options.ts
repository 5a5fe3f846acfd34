/**
 * `rateLimit()`'s options, checked and turned into what an isolate is made
 * of once, when the middleware is made (docs/hono.md).
 */
import type { Context } from "hono";
import { DEFAULT_SETTINGS, inRange, SETTINGS, type SettingRow, type Settings, settingProblem } from "../config.ts";
import type { TrustedProxyHeader } from "../request/client-ip.ts";
import type { HeaderDialect } from "../http/header-dialect.ts";
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
  /**
   * When a counter cannot be asked in time or is overloaded: `"local"` decides
   * with the isolate's own counters (docs/reliability.md, "Failure mode"),
   * `"open"` lets the request through, `"closed"` answers 503. Default `"local"`.
   */
  readonly failureMode?: "local" | "open" | "closed";
  /** Milliseconds to wait for a counter before `failureMode` applies. Default 1000. */
  readonly timeoutMs?: number;
  /** Proxies of yours in front of Cloudflare whose `X-Forwarded-For` entries are trusted. Default 0. */
  readonly trustedProxyHops?: number;
  /** With `trustedProxyHops`: the one header your proxy writes the client address into. Default `"x-forwarded-for"`. */
  readonly trustedProxyHeader?: TrustedProxyHeader;
  /** Count every limit, block none (Envoy's SHADOW_MODE). Default false. */
  readonly shadowMode?: boolean;
  /** The rate-limit header dialect: `"draft-11"`, `"draft-7"`, `"draft-6"` or `"none"` (docs/headers.md). Default `"draft-11"`. */
  readonly headers?: HeaderDialect;
  /**
   * The secret key counters are placed in shards with (docs/deploy.md, "Shard
   * key"); give the gateway's `SHARD_KEY` when both share counters. Default:
   * derived from the counters namespace, as the gateway's default is.
   */
  readonly shardKey?: string;
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

/** hono-rate-limiter's own option names (docs/from-hono-rate-limiter.md): they take no rules document. */
export const HONO_RATE_LIMITER_KEYS: readonly string[] = [
  "keyGenerator",
  "windowMs",
  "limit",
  "standardHeaders",
  "handler",
  "skip",
  "skipFailedRequests",
  "skipSuccessfulRequests",
  "message",
  "statusCode",
];

const RULES_OPTIONS = [
  "rules",
  "counters",
  "metrics",
  "failureMode",
  "timeoutMs",
  "trustedProxyHops",
  "trustedProxyHeader",
  "shadowMode",
  "headers",
  "shardKey",
];

/**
 * Options with `rules`: a TypeError naming any the rules middleware does not
 * take (hono-rate-limiter's included: they make a middleware without rules).
 *
 * @example
 * checkRulesOptions({ rules, windowMs: 60_000 }); // throws: option "windowMs" is hono-rate-limiter's ...
 */
export function checkRulesOptions(options: object): void {
  for (const key of Object.keys(options)) {
    if (RULES_OPTIONS.includes(key)) continue;
    if (HONO_RATE_LIMITER_KEYS.includes(key)) {
      throw new TypeError(`rateLimit(): option "${key}" is hono-rate-limiter's and takes no rules; with "rules" the limits come from the rules document`);
    }
    throw new TypeError(`rateLimit(): unknown option "${key}"; with rules the options are ${RULES_OPTIONS.join(", ")}`);
  }
}

/**
 * The settings an isolate of the middleware runs with: each row of the
 * settings table (src/config.ts, SETTINGS) that names an option is read from
 * that option, checked against the same defaults and ranges as the
 * gateway's `[vars]`; every other row keeps its default. Nothing is read
 * from the app's env (docs/hono.md).
 *
 * @example
 * settingsFromOptions({ rules, failureMode: "closed" }).decisionTimeoutMs; // 1000
 */
export function settingsFromOptions(options: RateLimitOptions): Settings {
  const settings: Record<string, unknown> = { ...DEFAULT_SETTINGS };
  for (const [field, row] of Object.entries(SETTINGS) as [string, SettingRow][]) {
    const value = row.option === undefined ? undefined : (options as unknown as Record<string, unknown>)[row.option];
    if (value !== undefined) settings[field] = checkedOption(value, row, row.option ?? field);
  }
  return Object.freeze(settings) as Settings;
}

// An option's value as its row takes it: the same values as the variable's text, typed.
function checkedOption(value: unknown, row: SettingRow, option: string): unknown {
  const problem = () => `rateLimit(): ${settingProblem(row, option, value)}`;
  switch (row.kind) {
    case "choice":
      if (!(row.choices as readonly unknown[]).includes(value)) throw new TypeError(problem());
      return value;
    case "whole":
    case "number":
      if (typeof value !== "number" || !inRange(row, value)) throw new RangeError(problem());
      return value;
    case "flag":
      if (typeof value !== "boolean") throw new TypeError(problem());
      return value;
    default:
      if (typeof value !== "string" || value === "") throw new TypeError(problem());
      return value;
  }
}
