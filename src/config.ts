/**
 * Bindings and variables the worker reads (wrangler.toml `[vars]`, secrets,
 * `.dev.vars`). Every variable is optional text; `readSettings` turns them
 * into typed settings with the defaults docs/operations.md ("Configuration") documents.
 */
import type { CounterObject } from "./durable/counters/counter-object.ts";
import type { MetricsObject } from "./durable/metrics/metrics-object.ts";
import type { QueueStatusObject } from "./durable/queue/status-object.ts";
import type { QueuedMessage } from "./queue/message.ts";
import type { RulesObject } from "./durable/rules/rules-object.ts";
import { DEFAULT_HEADER_DIALECT, HEADER_DIALECTS } from "./http/header-dialect.ts";
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
  RULES: DurableObjectNamespace<RulesObject>;
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

/** The shortest ADMIN_TOKEN taken; a shorter one turns the admin endpoints off (docs/deploy.md). */
export const ADMIN_TOKEN_MIN_LENGTH = 32;

/** Shortest QUEUE_SECRET accepted: an HMAC key guessable in less is no signature. */
export const QUEUE_SECRET_MIN_LENGTH = 32;

/**
 * How a setting's text is read: one of `choices` (any case), a whole number
 * or a number inside `range`, `true`/`false`, a secret (kept as written), or
 * an http(s) URL.
 */
export type SettingKind = "choice" | "whole" | "number" | "flag" | "secret" | "url";

/** One row of the settings table: its `[vars]` name, its `rateLimit()` option (if any), default, range and meaning. */
export interface SettingRow {
  readonly variable: keyof Env & string;
  /** The option of `rateLimit()` (and the middleware without rules, where it takes it) that sets it; absent: the middleware keeps the default. */
  readonly option?: string;
  readonly kind: SettingKind;
  /** The value when unset or empty; absent: the setting is unset (undefined). */
  readonly fallback?: string | number | boolean;
  /** Inclusive bounds of a number. */
  readonly range?: readonly [number, number];
  /** The unit a number is in, as its error names it. */
  readonly unit?: string;
  /** The values a choice may take. */
  readonly choices?: readonly string[];
  /** The shortest secret taken. */
  readonly minLength?: number;
  /** A secret shorter than `minLength` turns its feature off (said in `refused`) instead of being a ConfigError. */
  readonly shortTurnsOff?: true;
  /** Said after the error of a value it does not take: why the bounds are what they are. */
  readonly why?: string;
  /** One line: what it does (docs/operations.md, "Configuration", says more). */
  readonly doc: string;
}

/**
 * Every `[vars]` setting, in one table (docs/operations.md, "Configuration";
 * test/config/settings-table.node.test.ts holds that page to it): the decision
 * settings (those with an `option`: also `rateLimit()`'s options, with the
 * same defaults and ranges), the gateway's own, the traffic sample's.
 * `readSettings` reads `[vars]` by it and `settingsFromOptions` a
 * middleware's options; a new setting is one row here.
 */
export const SETTINGS = {
  failureMode: {
    variable: "FAILURE_MODE",
    option: "failureMode",
    kind: "choice",
    fallback: "local",
    choices: ["local", "open", "closed"],
    doc: "what a request is when its counters cannot be reached in time or are overloaded: decided by the isolate's own counters (local), let through (open) or refused with a 503 (closed)",
  },
  decisionTimeoutMs: {
    variable: "DECISION_TIMEOUT_MS",
    option: "timeoutMs",
    kind: "whole",
    fallback: 1000,
    range: [1, 600_000],
    unit: "milliseconds",
    doc: "how long a decision waits for its counters before FAILURE_MODE applies",
  },
  shadowMode: { variable: "SHADOW_MODE", option: "shadowMode", kind: "flag", fallback: false, doc: "count every limit, block none" },
  trustedProxyHops: {
    variable: "TRUSTED_PROXY_HOPS",
    option: "trustedProxyHops",
    kind: "whole",
    fallback: 0,
    range: [0, 16],
    doc: "proxies of yours in front of Cloudflare whose client-address header is trusted",
  },
  trustedProxyHeader: {
    variable: "TRUSTED_PROXY_HEADER",
    option: "trustedProxyHeader",
    kind: "choice",
    fallback: "x-forwarded-for",
    choices: ["x-forwarded-for", "x-real-ip"],
    doc: "the header those proxies write the client address into",
  },
  headerDialect: {
    variable: "RATELIMIT_HEADERS",
    option: "headers",
    kind: "choice",
    fallback: DEFAULT_HEADER_DIALECT,
    choices: HEADER_DIALECTS,
    doc: "the rate-limit header fields responses carry",
  },
  shardKey: { variable: "SHARD_KEY", option: "shardKey", kind: "secret", doc: "the secret key of the shard hash (unset: derived from the COUNTERS namespace)" },
  originUrl: { variable: "ORIGIN_URL", kind: "url", doc: "where admitted requests go (unset: the built-in echo, or a zone route's own origin)" },
  adminToken: {
    variable: "ADMIN_TOKEN",
    kind: "secret",
    minLength: ADMIN_TOKEN_MIN_LENGTH,
    shortTurnsOff: true,
    doc: "the bearer token of the admin API (unset: the admin API is off)",
  },
  metricsFlushMs: {
    variable: "METRICS_FLUSH_MS",
    kind: "whole",
    fallback: 30_000,
    // A batch waits for later requests, or for a tail timer of at most 20 s in one request's waitUntil (send-pace.ts).
    range: [0, 300_000],
    unit: "milliseconds",
    doc: "longest an isolate holds a metric count before sending it to its metrics shard (sooner once 1,000 requests are pending)",
  },
  queueMaxAttempts: {
    variable: "QUEUE_MAX_ATTEMPTS",
    kind: "whole",
    fallback: 5,
    range: [1, QUEUE_CONSUMER_MAX_RETRIES],
    why: `at most the queue consumer's max_retries (${QUEUE_CONSUMER_MAX_RETRIES} in wrangler.toml), past which Cloudflare Queues dead-letters a message itself, without its failure`,
    doc: "deliveries of a queued request before it is dead-lettered",
  },
  queueRetryBaseSeconds: {
    variable: "QUEUE_RETRY_BASE_SECONDS",
    kind: "whole",
    fallback: 10,
    range: [0, 3600],
    doc: "first retry delay of a failed delivery, doubled per failure",
  },
  queueSecret: {
    variable: "QUEUE_SECRET",
    kind: "secret",
    minLength: QUEUE_SECRET_MIN_LENGTH,
    doc: "signs queued deliveries and encrypts kept credentials (unset: no signature, no credentials kept)",
  },
  methodOverride: {
    variable: "METHOD_OVERRIDE",
    kind: "choice",
    fallback: "strip",
    choices: ["strip", "count"] satisfies MethodOverride[],
    doc: "a method-override header: removed before the origin (strip) or counted as the method it names (count)",
  },
  encodedSlashes: {
    variable: "ENCODED_SLASHES",
    kind: "choice",
    fallback: "decode",
    choices: ["decode", "keep", "reject"] satisfies EncodedSlashes[],
    doc: "%2F and %5C in a path: read as / (decode), kept apart (keep) or refused with 400 (reject)",
  },
  countersJurisdiction: {
    variable: "COUNTERS_JURISDICTION",
    kind: "choice",
    choices: COUNTERS_JURISDICTIONS,
    doc: "the Durable Object jurisdiction the counter objects are kept in (unset: none)",
  },
  maxJsonBodyBytes: {
    variable: "MAX_JSON_BODY_BYTES",
    kind: "whole",
    fallback: 1_048_576,
    range: [1, 104_857_600],
    unit: "bytes",
    why: "a Worker holds the body it reads in memory (128 MB per isolate)",
    doc: "the most bytes of a request's JSON body a route reading it (json_body) takes; a larger body gets 413",
  },
  sampleKeyRate: {
    variable: "SAMPLE_KEY_RATE",
    kind: "number",
    fallback: 0.1,
    range: [0, 1],
    doc: "the least share of descriptor keys the traffic sample keeps once a domain has many active keys; every key up to 100 (0: no sample)",
  },
  sampleMaxRows: { variable: "SAMPLE_MAX_ROWS", kind: "whole", fallback: 20_000, range: [0, 200_000], doc: "most sample rows kept per domain" },
  sampleRetentionHours: { variable: "SAMPLE_RETENTION_HOURS", kind: "whole", fallback: 168, range: [1, 24 * 90], doc: "hours a sample row is kept" },
} as const satisfies Record<string, SettingRow>;

type Table = typeof SETTINGS;
type ValueOf<R> = R extends { readonly choices: readonly (infer C)[] }
  ? C
  : R extends { readonly kind: "whole" | "number" }
    ? number
    : R extends { readonly kind: "flag" }
      ? boolean
      : R extends { readonly kind: "url" }
        ? URL
        : string;
type Defaulted = { [K in keyof Table]: Table[K] extends { readonly fallback: unknown } ? K : never }[keyof Table];

/**
 * Typed, defaulted, frozen view of the settings, one field per row of
 * SETTINGS (a row without a default may be undefined), and why a too-short
 * ADMIN_TOKEN was refused.
 */
export type Settings = { readonly [K in Defaulted]: ValueOf<Table[K]> } & { readonly [K in Exclude<keyof Table, Defaulted>]?: ValueOf<Table[K]> } & {
  /** Why the ADMIN_TOKEN given is refused (too short): the admin endpoints answer 503 with it. */
  readonly adminTokenRefused?: string;
};

/** Raised when a `[vars]` value cannot be understood; the worker answers 500-free with a 503. */
export class ConfigError extends Error {}

/**
 * The error text of a value `row` does not take, named `name` (the
 * variable or the option).
 *
 * @example
 * settingProblem(SETTINGS.failureMode, "FAILURE_MODE", "sometimes"); // 'FAILURE_MODE must be one of "local", "open", "closed", got "sometimes"'
 */
export function settingProblem(row: SettingRow, name: string, given: unknown): string {
  const got = `got ${JSON.stringify(given)}${row.why !== undefined ? ` (${row.why})` : ""}`;
  if (row.choices !== undefined) {
    const quoted = row.choices.map((c) => `"${c}"`);
    return `${name} must be ${quoted.length === 2 ? quoted.join(" or ") : `one of ${quoted.join(", ")}`}, ${got}`;
  }
  const number = row.kind === "whole" ? "a whole number" : "a number";
  if (row.range !== undefined) return `${name} must be ${number}${row.unit ? ` of ${row.unit}` : ""} from ${row.range[0]} to ${row.range[1]}, ${got}`;
  if (row.kind === "flag") return `${name} must be true or false, ${got}`;
  if (row.kind === "url") return `${name} must be an http or https URL, ${got}`;
  return `${name} must be a non-empty string, ${got}`;
}

/**
 * Whether `value` is a number `row` takes: inside its range, whole for a
 * `whole` row.
 *
 * @example
 * inRange(SETTINGS.trustedProxyHops, 17); // false
 */
export function inRange(row: SettingRow, value: number): boolean {
  const [min, max] = row.range ?? [Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY];
  return (row.kind === "whole" ? Number.isInteger(value) : Number.isFinite(value)) && value >= min && value <= max;
}

/**
 * Parse the environment into settings, once per isolate, by the table:
 * every row's variable read (spaces around trimmed, words in any case; an
 * empty value counts as unset), a value the row does not take a
 * ConfigError naming the variable and what it takes. Secrets are never
 * part of an error. The result is frozen.
 *
 * @example
 * const settings = readSettings({ COUNTERS, FAILURE_MODE: "closed" });
 * settings.failureMode; // "closed"
 * settings.decisionTimeoutMs; // 1000
 */
export function readSettings(env: Partial<Env>): Settings {
  const settings: Record<string, unknown> = {};
  for (const [field, row] of Object.entries(SETTINGS) as [string, SettingRow][]) {
    const given = env[row.variable];
    const value = fromText(typeof given === "string" ? given : undefined, row);
    if (value === undefined) continue;
    if (row.shortTurnsOff && typeof value === "string" && value.length < (row.minLength ?? 0)) {
      // Refused, not fatal: the gateway goes on limiting; only the endpoints the token guards are off.
      settings[`${field}Refused`] =
        `The admin endpoints are off: ${row.variable} is shorter than ${row.minLength} characters. Set a longer one (docs/deploy.md).`;
      continue;
    }
    settings[field] = value;
  }
  return Object.freeze(settings) as Settings;
}

/** The settings of an empty `[vars]`: every default of the table. */
export const DEFAULT_SETTINGS: Settings = readSettings({});

// One `[vars]` text read by its row: undefined when unset (and the row has no default).
function fromText(given: string | undefined, row: SettingRow): unknown {
  const text = given?.trim() ?? "";
  if (text === "") return row.fallback;
  const fail = () => new ConfigError(settingProblem(row, row.variable, given));
  switch (row.kind) {
    case "choice": {
      const word = text.toLowerCase();
      if (!row.choices?.includes(word)) throw fail();
      return word;
    }
    case "whole":
    case "number": {
      const value = Number(text);
      if (!inRange(row, value)) throw fail();
      return value;
    }
    case "flag":
      if (text.toLowerCase() !== "true" && text.toLowerCase() !== "false") throw fail();
      return text.toLowerCase() === "true";
    case "url":
      if (!URL.canParse(text) || !/^https?:$/.test(new URL(text).protocol)) throw fail();
      return new URL(text);
    case "secret":
      // Kept as written (not trimmed); its value is never part of the message.
      if (!row.shortTurnsOff && given !== undefined && given.length < (row.minLength ?? 0)) {
        throw new ConfigError(`${row.variable} must be at least ${row.minLength} characters, got ${given.length}`);
      }
      return given;
  }
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
