/**
 * hono-rate-limiter's options, as `rateLimit()` takes them without a rules
 * document (docs/from-hono-rate-limiter.md): checked once, when the
 * middleware is made; what floodgate does not support is an error naming it.
 */
import type { Context, Env as HonoEnv, Input, Next } from "hono";
import type { StatusCode } from "hono/utils/http-status";
import type { Settings } from "../config.ts";
import type { HeaderDialect } from "../http/header-dialect.ts";
import type { RateLimitResult } from "../limiter/types.ts";
import type { RateLimitOptions } from "./options.ts";
import { HONO_RATE_LIMITER_KEYS, settingsFromOptions } from "./options.ts";

// biome-ignore lint/suspicious/noExplicitAny: a namespace of the user's bindings, typed or not.
type Namespace = DurableObjectNamespace<any>;
type Promisable<T> = T | Promise<T>;
// biome-ignore lint/suspicious/noExplicitAny: any app's env, as Hono's own MiddlewareHandler defaults it.
type AnyEnv = any;
// biome-ignore lint/complexity/noBannedTypes: Hono's default Input.
type NoInput = {};

/** The decision `c.get("rateLimit")` holds; with hono-rate-limiter's options, also its `used` and `resetTime`. */
export interface RateLimitInfo extends RateLimitResult {
  /** Hits counted in the window, this request's included. */
  readonly used?: number;
  /** When the window's count starts over. */
  readonly resetTime?: Date;
}

/** What `c.get(requestStorePropertyName)` holds (hono-rate-limiter's store, over floodgate's counters). */
export interface RateLimitStore {
  /** The hits counted for `key` in its current window, and when it starts over; undefined when it has none. */
  readonly getKey: (key: string) => Promise<{ totalHits: number; resetTime?: Date } | undefined>;
  /** Forget `key`'s hits: its next request starts a full window. */
  readonly resetKey: (key: string) => Promise<void>;
}

declare module "hono" {
  interface ContextVariableMap {
    /** The store of the `rateLimiter()` that ran, with hono-rate-limiter's options (its `requestStorePropertyName`). */
    rateLimitStore: RateLimitStore;
  }
}

/**
 * `rateLimit()`'s options in hono-rate-limiter's names, with floodgate's
 * counters in place of a `store`; typed by the app's env (`E`), as
 * `rateLimiter<{ Bindings: Bindings }>(...)` is in hono-rate-limiter.
 */
export interface HonoRateLimiterOptions<E extends HonoEnv = AnyEnv, P extends string = string, I extends Input = NoInput> {
  /** The client's key (an IP, a user, an API key). Required. */
  readonly keyGenerator: (c: Context<E, P, I>) => Promisable<string>;
  /** The window, in milliseconds: a whole number of seconds. Default 60000. */
  readonly windowMs?: number;
  /** Requests per window, or a function of the context giving it. Default 5. */
  readonly limit?: number | ((c: Context<E, P, I>) => Promisable<number>);
  /** `"draft-6"` (or `true`): `RateLimit-Limit/-Remaining/-Reset`; `"draft-7"`: the combined `RateLimit`; `false`: none. Default `"draft-6"`. */
  readonly standardHeaders?: boolean | "draft-6" | "draft-7";
  /** Answers a request over the limit. Default: `statusCode` with `message`. */
  readonly handler?: (c: Context<E, P, I>, next: Next, options: HonoRateLimiterSettings<E, P, I>) => unknown;
  /** Requests for which it answers true are neither counted nor limited. Default: none. */
  readonly skip?: (c: Context<E, P, I>) => Promisable<boolean>;
  /** Give back the hit of a request whose response is 400 or more. Default false. */
  readonly skipFailedRequests?: boolean;
  /** Give back the hit of a request whose response is below 400. Default false. */
  readonly skipSuccessfulRequests?: boolean;
  /** The body of the default answer over the limit: text, a JSON object, or a function of the context. Default `"Too many requests, please try again later."`. */
  readonly message?: string | Record<string, unknown> | ((c: Context<E, P, I>) => Promisable<string | Record<string, unknown>>);
  /** The status of the default answer over the limit. Default 429. */
  readonly statusCode?: StatusCode;
  /** The context variable the decision is set in (`c.get(name)`). Default `"rateLimit"`. */
  readonly requestPropertyName?: string;
  /** The context variable the store is set in (`c.get(name).resetKey(key)`). Default `"rateLimitStore"`. */
  readonly requestStorePropertyName?: string;
  /**
   * floodgate: counters are kept apart per prefix. Default: each
   * `rateLimiter()` counts on its own, as each has its own store in
   * hono-rate-limiter (kept apart by the path it is mounted on and its place
   * among the limiters there); middlewares given the same prefix, window and
   * limit share counts, as with one shared store.
   */
  readonly prefix?: string;
  /** floodgate: the CounterObject namespace. Default `(c) => c.env.COUNTERS`. */
  readonly counters?: (c: Context<E, P, I>) => Namespace;
  /** floodgate: the MetricsObject namespace, to keep metrics. Default: none are kept. */
  readonly metrics?: (c: Context<E, P, I>) => Namespace | undefined;
  /**
   * floodgate: when a counter cannot be asked in time or is overloaded,
   * `"local"` decides with the isolate's own counters, `"open"` lets the
   * request through, `"closed"` answers 503. Default `"local"`.
   */
  readonly failureMode?: "local" | "open" | "closed";
  /** floodgate: milliseconds to wait for a counter before `failureMode` applies. Default 1000. */
  readonly timeoutMs?: number;
}

/** The options with their defaults, as `handler` gets them (hono-rate-limiter passes its own the same way). */
export interface HonoRateLimiterSettings<E extends HonoEnv = AnyEnv, P extends string = string, I extends Input = NoInput> {
  readonly keyGenerator: (c: Context<E, P, I>) => Promisable<string>;
  readonly windowMs: number;
  readonly limit: number | ((c: Context<E, P, I>) => Promisable<number>);
  readonly standardHeaders: boolean | "draft-6" | "draft-7";
  readonly handler: (c: Context<E, P, I>, next: Next, options: HonoRateLimiterSettings<E, P, I>) => unknown;
  readonly skip: (c: Context<E, P, I>) => Promisable<boolean>;
  readonly skipFailedRequests: boolean;
  readonly skipSuccessfulRequests: boolean;
  readonly message: NonNullable<HonoRateLimiterOptions<E, P, I>["message"]>;
  readonly statusCode: StatusCode;
  readonly requestPropertyName: string;
  readonly requestStorePropertyName: string;
  /** The prefix given, or undefined: each middleware counts on its own. */
  readonly prefix: string | undefined;
  /** The header dialect `standardHeaders` names. */
  readonly dialect: HeaderDialect;
  /** The statuses charged (`count_when`), when the skip options give any back. */
  readonly countWhen?: readonly string[];
  readonly settings: Settings;
}

const KNOWN = [...HONO_RATE_LIMITER_KEYS, "requestPropertyName", "requestStorePropertyName", "prefix", "counters", "metrics", "failureMode", "timeoutMs"];

/** hono-rate-limiter options floodgate does not take, and why. */
const UNSUPPORTED: Readonly<Record<string, string>> = {
  store: "floodgate keeps the counts in its CounterObject: remove `store` (and pass `counters` if the namespace is not c.env.COUNTERS)",
  binding: "floodgate is the rate limiter: remove `binding` and give `windowMs` and `limit`",
  requestWasSuccessful: "a response counts as successful when its status is below 400",
};

/** Options only a rules document's `rateLimit()` takes. */
const RULES_ONLY = ["rules", "headers", "trustedProxyHops", "trustedProxyHeader", "shadowMode"];

const defaultHandler = async (c: Context, _next: Next, options: HonoRateLimiterSettings): Promise<Response> => {
  c.status(options.statusCode);
  const body = typeof options.message === "function" ? await options.message(c) : options.message;
  return typeof body === "string" ? c.text(body) : c.json(body);
};

/**
 * Check hono-rate-limiter's options; throws a TypeError naming the first
 * that is unknown, unsupported or invalid.
 *
 * @example
 * compatSettings({ keyGenerator: (c) => c.req.header("x-api-key") ?? "", limit: 100 }).windowMs; // 60000
 */
export function compatSettings(options: HonoRateLimiterOptions): HonoRateLimiterSettings {
  if (typeof options !== "object" || options === null) throw new TypeError("rateLimit(): expected an options object");
  for (const key of Object.keys(options)) {
    if (Object.hasOwn(UNSUPPORTED, key)) throw new TypeError(`rateLimit(): option "${key}" is not supported: ${UNSUPPORTED[key]}`);
    if (RULES_ONLY.includes(key)) throw new TypeError(`rateLimit(): option "${key}" needs a rules document ("rules"); hono-rate-limiter's options take none`);
    if (!KNOWN.includes(key)) throw new TypeError(`rateLimit(): unknown option "${key}"; without rules the options are ${KNOWN.join(", ")}`);
  }
  const o = options;
  if (typeof o.keyGenerator !== "function") throw new TypeError("rateLimit(): keyGenerator is required: a function of the context giving the client's key");
  const windowMs = o.windowMs ?? 60_000;
  if (!Number.isInteger(windowMs) || windowMs < 1000 || windowMs % 1000 !== 0) {
    throw new TypeError(`rateLimit(): windowMs must be a whole number of seconds in milliseconds (at least 1000), got ${JSON.stringify(windowMs)}`);
  }
  const limit = o.limit ?? 5;
  if (typeof limit !== "function") checkLimit(limit);
  const standardHeaders = o.standardHeaders ?? "draft-6";
  if (![true, false, "draft-6", "draft-7"].includes(standardHeaders)) {
    throw new TypeError(`rateLimit(): standardHeaders must be true, false, "draft-6" or "draft-7", got ${JSON.stringify(standardHeaders)}`);
  }
  const dialect: HeaderDialect = standardHeaders === false ? "none" : standardHeaders === "draft-7" ? "draft-7" : "draft-6";
  for (const name of ["handler", "skip", "counters", "metrics"] as const) {
    if (o[name] !== undefined && typeof o[name] !== "function") throw new TypeError(`rateLimit(): ${name} must be a function`);
  }
  const skipFailedRequests = flag(o.skipFailedRequests, "skipFailedRequests");
  const skipSuccessfulRequests = flag(o.skipSuccessfulRequests, "skipSuccessfulRequests");
  if (skipFailedRequests && skipSuccessfulRequests)
    throw new TypeError("rateLimit(): skipFailedRequests and skipSuccessfulRequests together skip every request");
  const statusCode = o.statusCode ?? 429;
  if (!Number.isInteger(statusCode) || statusCode < 200 || statusCode > 599)
    throw new TypeError(`rateLimit(): statusCode must be an HTTP status, got ${JSON.stringify(statusCode)}`);
  const message = o.message ?? "Too many requests, please try again later.";
  const prefix = o.prefix;
  if (prefix !== undefined && (typeof prefix !== "string" || prefix === "")) {
    throw new TypeError(`rateLimit(): prefix must be a non-empty string, got ${JSON.stringify(prefix)}`);
  }
  const requestPropertyName = propertyName(o.requestPropertyName, "requestPropertyName", "rateLimit");
  const requestStorePropertyName = propertyName(o.requestStorePropertyName, "requestStorePropertyName", "rateLimitStore");
  const countWhen = skipFailedRequests ? ["100-399"] : skipSuccessfulRequests ? ["400-599"] : undefined;
  const settings = settingsFromOptions({ rules: undefined, failureMode: o.failureMode, timeoutMs: o.timeoutMs, headers: dialect } satisfies RateLimitOptions);
  return {
    keyGenerator: o.keyGenerator,
    windowMs,
    limit,
    standardHeaders,
    handler: o.handler ?? defaultHandler,
    skip: o.skip ?? (() => false),
    skipFailedRequests,
    skipSuccessfulRequests,
    message,
    statusCode: statusCode as StatusCode,
    requestPropertyName,
    requestStorePropertyName,
    prefix,
    dialect,
    ...(countWhen !== undefined ? { countWhen } : {}),
    settings,
  };
}

/**
 * A limit, checked (a function's answer is checked on each request).
 *
 * @example
 * checkLimit(100); // 100
 */
export function checkLimit(limit: unknown): number {
  if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 0)
    throw new TypeError(`rateLimit(): limit must be a whole number of at least 0, got ${JSON.stringify(limit)}`);
  return limit;
}

function propertyName(value: unknown, name: string, fallback: string): string {
  if (value === undefined) return fallback;
  if (typeof value !== "string" || value === "") throw new TypeError(`rateLimit(): ${name} must be a non-empty string, got ${JSON.stringify(value)}`);
  return value;
}

function flag(value: unknown, name: string): boolean {
  if (value === undefined) return false;
  if (typeof value !== "boolean") throw new TypeError(`rateLimit(): ${name} must be true or false, got ${JSON.stringify(value)}`);
  return value;
}
