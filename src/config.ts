/**
 * Bindings and variables the worker reads (wrangler.toml `[vars]`, secrets,
 * `.dev.vars`). Every variable is optional text; `readSettings` turns them
 * into typed settings with the defaults docs/operations.md ("Configuration") documents.
 */
import type { CounterObject } from "./durable/counter-object.ts";
import type { MetricsObject } from "./metrics/metrics-object.ts";
import type { QueueStatusObject } from "./queue/status-object.ts";
import type { QueuedMessage } from "./queue/message.ts";
import type { RulesAndOverridesObject } from "./overrides/overrides-object.ts";
import type { TrustedProxyHeader } from "./request/client-ip.ts";
import { DEFAULT_HEADER_DIALECT, HEADER_DIALECTS, type HeaderDialect } from "./http/header-dialect.ts";
import type { EncodedSlashes, MethodOverride } from "./http/origin-settings.ts";

/**
 * What the worker's `env` holds. Its bindings and `[vars]` are those
 * `wrangler types` generates from wrangler.toml into
 * worker-configuration.d.ts (`Cloudflare.Env`); test/config/env-type.ts
 * fails the type-check when the two part, and `npm test` checks the
 * generated file is current. The optional fields are what wrangler.toml
 * leaves commented out or to secrets.
 */
export interface Env {
  COUNTERS: DurableObjectNamespace<CounterObject>;
  /** Rules stored by `PUT /__ratelimit/rules` (one object per deployment). */
  RULES: DurableObjectNamespace<RulesAndOverridesObject>;
  /** Metric counts aggregated across isolates. */
  METRICS: DurableObjectNamespace<MetricsObject>;
  /** `on_limit: "queue"`: requests queued for later delivery (producer of the queue this worker consumes). */
  QUEUE?: Queue<QueuedMessage>;
  /** Queued requests that kept failing, with their last failure. */
  DEAD_LETTERS?: Queue<QueuedMessage>;
  /** One object per queued request: its state for `GET /__ratelimit/queued/<id>`. */
  QUEUED?: DurableObjectNamespace<QueueStatusObject>;
  ORIGIN_URL?: string;
  ADMIN_TOKEN?: string;
  FAILURE_MODE?: string;
  DECISION_TIMEOUT_MS?: string;
  SHADOW_MODE?: string;
  METRICS_FLUSH_MS?: string;
  TRUSTED_PROXY_HOPS?: string;
  QUEUE_MAX_ATTEMPTS?: string;
  QUEUE_RETRY_BASE_SECONDS?: string;
  RATELIMIT_HEADERS?: string;
  /** Secret: signs queued deliveries and encrypts the credentials a `queue_credentials` rule keeps (docs/deploy.md). */
  QUEUE_SECRET?: string;
  /** With TRUSTED_PROXY_HOPS: the header your proxy writes the client address into (`x-forwarded-for` or `x-real-ip`). */
  TRUSTED_PROXY_HEADER?: string;
  /** Secret key of the shard hash (docs/deploy.md, "Shard key"). */
  SHARD_KEY?: string;
  /** `strip` (default) or `count`: what a method-override header does (docs/rules.md, "The origin's view"). */
  METHOD_OVERRIDE?: string;
  /** `decode` (default), `keep` or `reject`: how `%2F` and `%5C` in a path are read (docs/rules.md, "The origin's view"). */
  ENCODED_SLASHES?: string;
  /** A Durable Object jurisdiction (`eu`, …) the counter objects are kept in (docs/operations.md, "Jurisdiction"). */
  COUNTERS_JURISDICTION?: string;
  /** The traffic sample (docs/advisor.md, "Sample"): share of keys sampled, rows kept per domain, hours kept. */
  SAMPLE_KEY_RATE?: string;
  SAMPLE_MAX_ROWS?: string;
  SAMPLE_RETENTION_HOURS?: string;
  /** The most bytes of a request's JSON body a `json_body` route reads (docs/llm.md); default 1 MiB. */
  MAX_JSON_BODY_BYTES?: string;
}

/**
 * The settings that shape a decision, wherever it is made: the gateway
 * reads them from `[vars]`, `rateLimit()` from its options (SETTINGS
 * names both).
 */
export interface DecisionSettings {
  readonly failureMode: "local" | "open" | "closed";
  readonly decisionTimeoutMs: number;
  /** Global shadow mode (Envoy's SHADOW_MODE): every limit is counted, none blocks. */
  readonly shadowMode: boolean;
  /** Proxies of yours in front of Cloudflare whose X-Forwarded-For entries are trusted (0: only CF-Connecting-IP). */
  readonly trustedProxyHops: number;
  /** The one header a trusted proxy writes the client address into (read only when trustedProxyHops > 0). */
  readonly trustedProxyHeader: TrustedProxyHeader;
  /** Which rate-limit header fields responses carry (docs/headers.md). */
  readonly headerDialect: HeaderDialect;
  /** SHARD_KEY: the secret counters are placed in shards with; undefined: derived from the COUNTERS namespace. */
  readonly shardKey?: string;
}

/** The settings only the gateway Worker has: its origin, admin API, metrics sends and queue. */
export interface GatewaySettings {
  readonly originUrl?: URL;
  /** ADMIN_TOKEN when it is long enough (ADMIN_TOKEN_MIN_LENGTH). */
  readonly adminToken?: string;
  /** Why the ADMIN_TOKEN given is refused (too short): the admin endpoints answer 503 with it. */
  readonly adminTokenRefused?: string;
  /** Least time between two sends of an isolate's metric counts. */
  readonly metricsFlushMs: number;
  /** Deliveries of a queued request (the first included) before it is dead-lettered. */
  readonly queueMaxAttempts: number;
  /** First retry delay of a failed delivery; doubled per further failure. */
  readonly queueRetryBaseSeconds: number;
  /** QUEUE_SECRET: signs queued deliveries, encrypts kept credentials; unset: no signature, no credentials kept. */
  readonly queueSecret?: string;
  /** METHOD_OVERRIDE (absent: `strip`): a method-override header is removed before the origin (`strip`) or counted as the method it names (`count`). */
  readonly methodOverride?: MethodOverride;
  /** ENCODED_SLASHES (absent: `decode`): `%2F` and `%5C` in a path read as `/` (`decode`), kept apart (`keep`) or refused with 400 (`reject`). */
  readonly encodedSlashes?: EncodedSlashes;
  /** COUNTERS_JURISDICTION: the jurisdiction the counter objects live in; absent: none (anywhere). */
  readonly countersJurisdiction?: CountersJurisdiction;
  /** MAX_JSON_BODY_BYTES (absent: 1 MiB): the most of a request's JSON body a route reading it takes; past it, 413 (docs/llm.md). */
  readonly maxJsonBodyBytes?: number;
}

/** The Durable Object jurisdictions COUNTERS_JURISDICTION takes (`DurableObjectNamespace.jurisdiction()`). */
export const COUNTERS_JURISDICTIONS = ["eu", "fedramp", "fedramp-high", "us"] as const satisfies readonly DurableObjectJurisdiction[];

/** One of COUNTERS_JURISDICTIONS. */
export type CountersJurisdiction = (typeof COUNTERS_JURISDICTIONS)[number];

/**
 * The most deliveries QUEUE_MAX_ATTEMPTS may ask for: the queue consumer's
 * `max_retries` in wrangler.toml (10). Floodgate dead-letters a message
 * itself after QUEUE_MAX_ATTEMPTS deliveries, using QUEUE_MAX_ATTEMPTS − 1
 * of Queues' retries; past `max_retries` Queues would dead-letter it first,
 * without its failure record, its status left "queued".
 */
export const QUEUE_CONSUMER_MAX_RETRIES = 10;

/** Typed, defaulted view of the environment. */
export interface Settings extends DecisionSettings, GatewaySettings {}

/** One row of the settings table: its `[vars]` name, its `rateLimit()` option (if any), default, range and meaning. */
export interface SettingRow {
  readonly variable: string;
  /** The option of `rateLimit()` (and the drop-ins, where they take it) that sets it. */
  readonly option?: string;
  readonly fallback: string | number | boolean | undefined;
  /** Inclusive bounds of a number. */
  readonly range?: readonly [number, number];
  /** The unit a number is in, as its error names it. */
  readonly unit?: string;
  /** The values a text may take. */
  readonly choices?: readonly string[];
  /** Said after the error of a value it does not take: why the bounds are what they are. */
  readonly why?: string;
  readonly doc: string;
}

/**
 * Every setting, in one table (docs/operations.md, "Configuration"):
 * decision settings first, then the gateway's own. `readSettings` and
 * `rateLimit()`'s options both read their defaults and ranges here.
 */
export const SETTINGS = {
  decision: {
    failureMode: {
      variable: "FAILURE_MODE",
      option: "failureMode",
      fallback: "local",
      choices: ["local", "open", "closed"],
      doc: "what a request is when its counters cannot be reached in time or are overloaded: decided by the isolate's own counters (local), let through (open) or refused with a 503 (closed)",
    },
    decisionTimeoutMs: {
      variable: "DECISION_TIMEOUT_MS",
      option: "timeoutMs",
      fallback: 1000,
      range: [1, 600_000],
      unit: "milliseconds",
      doc: "how long a decision waits for its counters before FAILURE_MODE applies",
    },
    shadowMode: { variable: "SHADOW_MODE", option: "shadowMode", fallback: false, doc: "count every limit, block none" },
    trustedProxyHops: {
      variable: "TRUSTED_PROXY_HOPS",
      option: "trustedProxyHops",
      fallback: 0,
      range: [0, 16],
      doc: "proxies of yours in front of Cloudflare whose client-address header is trusted",
    },
    trustedProxyHeader: {
      variable: "TRUSTED_PROXY_HEADER",
      option: "trustedProxyHeader",
      fallback: "x-forwarded-for",
      choices: ["x-forwarded-for", "x-real-ip"],
      doc: "the header those proxies write the client address into",
    },
    headerDialect: {
      variable: "RATELIMIT_HEADERS",
      option: "headers",
      fallback: DEFAULT_HEADER_DIALECT,
      choices: HEADER_DIALECTS,
      doc: "the rate-limit header fields responses carry",
    },
    shardKey: { variable: "SHARD_KEY", option: "shardKey", fallback: undefined, doc: "the secret key of the shard hash" },
  },
  gateway: {
    originUrl: { variable: "ORIGIN_URL", fallback: undefined, doc: "where admitted requests go (unset: the built-in echo)" },
    adminToken: { variable: "ADMIN_TOKEN", fallback: undefined, doc: "the bearer token of the admin API (unset: the admin API is off)" },
    metricsFlushMs: {
      variable: "METRICS_FLUSH_MS",
      fallback: 5000,
      range: [0, 25_000],
      unit: "milliseconds",
      doc: "least time between two sends of an isolate's metric counts",
    },
    queueMaxAttempts: {
      variable: "QUEUE_MAX_ATTEMPTS",
      fallback: 5,
      range: [1, QUEUE_CONSUMER_MAX_RETRIES],
      why: `at most the queue consumer's max_retries (${QUEUE_CONSUMER_MAX_RETRIES} in wrangler.toml), past which Cloudflare Queues dead-letters a message itself, without its failure`,
      doc: "deliveries of a queued request before it is dead-lettered",
    },
    queueRetryBaseSeconds: {
      variable: "QUEUE_RETRY_BASE_SECONDS",
      fallback: 10,
      range: [0, 3600],
      doc: "first retry delay of a failed delivery, doubled per failure",
    },
    queueSecret: { variable: "QUEUE_SECRET", fallback: undefined, doc: "signs queued deliveries and encrypts kept credentials" },
    methodOverride: {
      variable: "METHOD_OVERRIDE",
      fallback: "strip",
      choices: ["strip", "count"],
      doc: "a method-override header: removed before the origin (strip) or counted as the method it names (count)",
    },
    encodedSlashes: {
      variable: "ENCODED_SLASHES",
      fallback: "decode",
      choices: ["decode", "keep", "reject"],
      doc: "%2F and %5C in a path: read as / (decode), kept apart (keep) or refused with 400 (reject)",
    },
    countersJurisdiction: {
      variable: "COUNTERS_JURISDICTION",
      fallback: undefined,
      choices: COUNTERS_JURISDICTIONS,
      doc: "the Durable Object jurisdiction the counter objects are kept in (unset: none)",
    },
    maxJsonBodyBytes: {
      variable: "MAX_JSON_BODY_BYTES",
      fallback: 1_048_576,
      range: [1, 104_857_600],
      unit: "bytes",
      why: "a Worker holds the body it reads in memory (128 MB per isolate)",
      doc: "the most bytes of a request's JSON body a route reading it (json_body) takes; a larger body gets 413",
    },
  },
} as const satisfies { decision: Record<keyof DecisionSettings, SettingRow>; gateway: Record<Exclude<keyof GatewaySettings, "adminTokenRefused">, SettingRow> };

/**
 * The error text of a value `row` does not take, named `name` (the
 * variable or the option).
 *
 * @example
 * settingProblem(SETTINGS.decision.failureMode, "FAILURE_MODE", "sometimes"); // 'FAILURE_MODE must be one of "local", "open", "closed", got "sometimes"'
 */
export function settingProblem(row: SettingRow, name: string, given: unknown): string {
  const got = `got ${JSON.stringify(given)}${row.why !== undefined ? ` (${row.why})` : ""}`;
  if (row.choices !== undefined) {
    const quoted = row.choices.map((c) => `"${c}"`);
    return `${name} must be ${quoted.length === 2 ? quoted.join(" or ") : `one of ${quoted.join(", ")}`}, ${got}`;
  }
  if (row.range !== undefined) return `${name} must be a whole number${row.unit ? ` of ${row.unit}` : ""} from ${row.range[0]} to ${row.range[1]}, ${got}`;
  if (typeof row.fallback === "boolean") return `${name} must be true or false, ${got}`;
  return `${name} is not valid, ${got}`;
}

/**
 * Whether `value` is a whole number inside `row`'s range.
 *
 * @example
 * inRange(SETTINGS.decision.trustedProxyHops, 17); // false
 */
export function inRange(row: SettingRow, value: number): boolean {
  const [min, max] = row.range ?? [Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY];
  return Number.isInteger(value) && value >= min && value <= max;
}

/** The shortest ADMIN_TOKEN taken; a shorter one turns the admin endpoints off (docs/deploy.md). */
export const ADMIN_TOKEN_MIN_LENGTH = 32;

/** Shortest QUEUE_SECRET accepted: an HMAC key guessable in less is no signature. */
export const QUEUE_SECRET_MIN_LENGTH = 32;

/** Raised when a `[vars]` value cannot be understood; the worker answers 500-free with a 503. */
export class ConfigError extends Error {}

/**
 * Parse the environment into settings, rejecting values that would silently
 * misbehave (an origin that is not http(s), a negative timeout).
 *
 * @example
 * const settings = readSettings({ COUNTERS, FAILURE_MODE: "closed" });
 * settings.failureMode; // "closed"
 * settings.decisionTimeoutMs; // 1000
 */
export function readSettings(env: Env): Settings {
  const { decision, gateway } = SETTINGS;
  const failureMode = choice(env.FAILURE_MODE, decision.failureMode);
  const decisionTimeoutMs = wholeNumber(env.DECISION_TIMEOUT_MS, decision.decisionTimeoutMs);
  let originUrl: URL | undefined;
  if (env.ORIGIN_URL && env.ORIGIN_URL.trim() !== "") {
    if (!URL.canParse(env.ORIGIN_URL)) throw new ConfigError(`ORIGIN_URL is not a URL: ${JSON.stringify(env.ORIGIN_URL)}`);
    originUrl = new URL(env.ORIGIN_URL);
    if (originUrl.protocol !== "http:" && originUrl.protocol !== "https:") {
      throw new ConfigError(`ORIGIN_URL must be http or https, got ${JSON.stringify(env.ORIGIN_URL)}`);
    }
  }
  const givenToken = env.ADMIN_TOKEN && env.ADMIN_TOKEN !== "" ? env.ADMIN_TOKEN : undefined;
  // Refused, not fatal: the gateway goes on limiting; only the endpoints the token guards are off.
  const adminToken = givenToken !== undefined && givenToken.length >= ADMIN_TOKEN_MIN_LENGTH ? givenToken : undefined;
  const adminTokenRefused =
    givenToken !== undefined && adminToken === undefined
      ? `The admin endpoints are off: ADMIN_TOKEN is shorter than ${ADMIN_TOKEN_MIN_LENGTH} characters. Set a longer one (docs/deploy.md).`
      : undefined;
  const shadowText = (env.SHADOW_MODE ?? String(decision.shadowMode.fallback)).trim().toLowerCase();
  if (shadowText !== "true" && shadowText !== "false" && shadowText !== "") {
    throw new ConfigError(`SHADOW_MODE must be "true" or "false", got ${JSON.stringify(env.SHADOW_MODE)}`);
  }
  // waitUntil work must finish within 30 s of the response, so a longer wait than the range's would lose counts.
  const metricsFlushMs = wholeNumber(env.METRICS_FLUSH_MS, gateway.metricsFlushMs);
  const trustedProxyHops = wholeNumber(env.TRUSTED_PROXY_HOPS, decision.trustedProxyHops);
  const queueMaxAttempts = wholeNumber(env.QUEUE_MAX_ATTEMPTS, gateway.queueMaxAttempts);
  const queueRetryBaseSeconds = wholeNumber(env.QUEUE_RETRY_BASE_SECONDS, gateway.queueRetryBaseSeconds);
  const headerDialect = choice(env.RATELIMIT_HEADERS, decision.headerDialect, true);
  const queueSecret = env.QUEUE_SECRET && env.QUEUE_SECRET !== "" ? env.QUEUE_SECRET : undefined;
  if (queueSecret !== undefined && queueSecret.length < QUEUE_SECRET_MIN_LENGTH) {
    // The value itself is never part of the message: it is a secret.
    throw new ConfigError(`QUEUE_SECRET must be at least ${QUEUE_SECRET_MIN_LENGTH} characters, got ${queueSecret.length}`);
  }
  const trustedProxyHeader = choice(env.TRUSTED_PROXY_HEADER, decision.trustedProxyHeader);
  return {
    originUrl,
    adminToken,
    adminTokenRefused,
    failureMode,
    decisionTimeoutMs,
    shadowMode: shadowText === "true",
    metricsFlushMs,
    trustedProxyHops,
    queueMaxAttempts,
    queueRetryBaseSeconds,
    headerDialect,
    ...(queueSecret !== undefined ? { queueSecret } : {}),
    trustedProxyHeader,
    shardKey: env.SHARD_KEY !== undefined && env.SHARD_KEY !== "" ? env.SHARD_KEY : undefined,
    methodOverride: choice<MethodOverride>(env.METHOD_OVERRIDE, gateway.methodOverride, true),
    encodedSlashes: choice<EncodedSlashes>(env.ENCODED_SLASHES, gateway.encodedSlashes, true),
    ...jurisdictionOf(env.COUNTERS_JURISDICTION),
    maxJsonBodyBytes: wholeNumber(env.MAX_JSON_BODY_BYTES, gateway.maxJsonBodyBytes),
  };
}

// COUNTERS_JURISDICTION: unset or empty is none; anything else must be a known jurisdiction.
function jurisdictionOf(given: string | undefined): { countersJurisdiction?: CountersJurisdiction } {
  const text = (given ?? "").trim().toLowerCase();
  if (text === "") return {};
  const row = SETTINGS.gateway.countersJurisdiction;
  if (!(row.choices as readonly string[]).includes(text)) throw new ConfigError(settingProblem(row, row.variable, given));
  return { countersJurisdiction: text as CountersJurisdiction };
}

/**
 * The counter objects' namespace as settings place them: in
 * COUNTERS_JURISDICTION when one is set.
 *
 * @example
 * const counters = countersIn(env.COUNTERS, settings); // env.COUNTERS.jurisdiction("eu") with COUNTERS_JURISDICTION = "eu"
 */
export function countersIn(counters: Env["COUNTERS"], settings: Pick<Settings, "countersJurisdiction">): Env["COUNTERS"] {
  const jurisdiction = settings.countersJurisdiction;
  if (jurisdiction === undefined) return counters;
  try {
    return counters.jurisdiction(jurisdiction);
  } catch (error) {
    // workerd (`npm run dev`, the tests) has no jurisdictions: a refusal, never counters kept elsewhere.
    throw new ConfigError(
      `COUNTERS_JURISDICTION "${jurisdiction}" cannot be applied here (${String(error)}); unset it for local runs (COUNTERS_JURISDICTION="" in .dev.vars)`,
    );
  }
}

// A `[vars]` text among `row.choices` (any case, spaces around ignored; unset, or empty when `emptyIsUnset`: the default).
function choice<C extends string>(
  given: string | undefined,
  row: SettingRow & { readonly fallback: C; readonly choices: readonly C[] },
  emptyIsUnset = false,
): C {
  const text = (given ?? row.fallback).trim().toLowerCase();
  if (text === "" && emptyIsUnset) return row.fallback;
  if (!(row.choices as readonly string[]).includes(text)) throw new ConfigError(settingProblem(row, row.variable, given));
  return text as C;
}

// A `[vars]` whole number inside `row.range` (unset: the default).
function wholeNumber(given: string | undefined, row: SettingRow & { readonly fallback: number }): number {
  const text = (given ?? String(row.fallback)).trim();
  const value = Number(text);
  if (text === "" || !inRange(row, value)) throw new ConfigError(settingProblem(row, row.variable, given));
  return value;
}
