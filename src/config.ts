/**
 * Bindings and variables the worker reads (wrangler.toml `[vars]`, secrets,
 * `.dev.vars`). Every variable is optional text; `readSettings` turns them
 * into typed settings with the defaults docs/operations.md ("Configuration") documents.
 */
import type { CounterObject } from "./durable/counter-object.ts";
import type { MetricsObject } from "./metrics/metrics-object.ts";
import type { QueueStatusObject } from "./queue/status-object.ts";
import type { QueuedMessage } from "./queue/message.ts";
import type { RulesObject } from "./rules/rules-object.ts";
import type { TrustedProxyHeader } from "./request/client-ip.ts";
import { type EncodedSlashes, type MethodOverride, readEncodedSlashes, readMethodOverride } from "./http/origin-settings.ts";
import { DEFAULT_HEADER_DIALECT, HEADER_DIALECTS, type HeaderDialect, isHeaderDialect } from "./http/header-dialect.ts";

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
}

/** Typed, defaulted view of the environment. */
export interface Settings {
  readonly originUrl?: URL;
  /** ADMIN_TOKEN when it is long enough (ADMIN_TOKEN_MIN_LENGTH). */
  readonly adminToken?: string;
  /** Why the ADMIN_TOKEN given is refused (too short): the admin endpoints answer 503 with it. */
  readonly adminTokenRefused?: string;
  readonly failureMode: "open" | "closed";
  readonly decisionTimeoutMs: number;
  /** Global shadow mode (Envoy's SHADOW_MODE): every limit is counted, none blocks. */
  readonly shadowMode: boolean;
  /** Least time between two sends of an isolate's metric counts. */
  readonly metricsFlushMs: number;
  /** Proxies of yours in front of Cloudflare whose X-Forwarded-For entries are trusted (0: only CF-Connecting-IP). */
  readonly trustedProxyHops: number;
  /** Deliveries of a queued request (the first included) before it is dead-lettered. */
  readonly queueMaxAttempts: number;
  /** First retry delay of a failed delivery; doubled per further failure. */
  readonly queueRetryBaseSeconds: number;
  /** Which rate-limit header fields responses carry (docs/headers.md). */
  readonly headerDialect: HeaderDialect;
  /** QUEUE_SECRET: signs queued deliveries, encrypts kept credentials; unset: no signature, no credentials kept. */
  readonly queueSecret?: string;
  /** The one header a trusted proxy writes the client address into (read only when trustedProxyHops > 0). */
  readonly trustedProxyHeader: TrustedProxyHeader;
  /** SHARD_KEY: the secret counters are placed in shards with; undefined: derived from the COUNTERS namespace. */
  readonly shardKey?: string;
  /** METHOD_OVERRIDE (absent: `strip`): a method-override header is removed before the origin (`strip`) or counted as the method it names (`count`). */
  readonly methodOverride?: MethodOverride;
  /** ENCODED_SLASHES (absent: `decode`): `%2F` and `%5C` in a path read as `/` (`decode`), kept apart (`keep`) or refused with 400 (`reject`). */
  readonly encodedSlashes?: EncodedSlashes;
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
  const failureMode = (env.FAILURE_MODE ?? "open").trim().toLowerCase();
  if (failureMode !== "open" && failureMode !== "closed") {
    throw new ConfigError(`FAILURE_MODE must be "open" or "closed", got ${JSON.stringify(env.FAILURE_MODE)}`);
  }
  const timeoutText = (env.DECISION_TIMEOUT_MS ?? "1000").trim();
  const decisionTimeoutMs = Number(timeoutText);
  if (!Number.isInteger(decisionTimeoutMs) || decisionTimeoutMs <= 0) {
    throw new ConfigError(`DECISION_TIMEOUT_MS must be a positive whole number of milliseconds, got ${JSON.stringify(env.DECISION_TIMEOUT_MS)}`);
  }
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
  const shadowText = (env.SHADOW_MODE ?? "false").trim().toLowerCase();
  if (shadowText !== "true" && shadowText !== "false" && shadowText !== "") {
    throw new ConfigError(`SHADOW_MODE must be "true" or "false", got ${JSON.stringify(env.SHADOW_MODE)}`);
  }
  const flushText = (env.METRICS_FLUSH_MS ?? "5000").trim();
  const metricsFlushMs = Number(flushText);
  if (flushText === "" || !Number.isInteger(metricsFlushMs) || metricsFlushMs < 0 || metricsFlushMs > 25_000) {
    // waitUntil work must finish within 30 s of the response, so a longer wait would lose counts.
    throw new ConfigError(`METRICS_FLUSH_MS must be a whole number of milliseconds from 0 to 25000, got ${JSON.stringify(env.METRICS_FLUSH_MS)}`);
  }
  const hopsText = (env.TRUSTED_PROXY_HOPS ?? "0").trim();
  const trustedProxyHops = Number(hopsText);
  if (hopsText === "" || !Number.isInteger(trustedProxyHops) || trustedProxyHops < 0 || trustedProxyHops > 16) {
    throw new ConfigError(`TRUSTED_PROXY_HOPS must be a whole number from 0 to 16, got ${JSON.stringify(env.TRUSTED_PROXY_HOPS)}`);
  }
  const queueMaxAttempts = wholeNumber(env.QUEUE_MAX_ATTEMPTS, "QUEUE_MAX_ATTEMPTS", 5, 1, 100);
  const queueRetryBaseSeconds = wholeNumber(env.QUEUE_RETRY_BASE_SECONDS, "QUEUE_RETRY_BASE_SECONDS", 10, 0, 3600);
  const dialectText = (env.RATELIMIT_HEADERS ?? "").trim().toLowerCase();
  const headerDialect = dialectText === "" ? DEFAULT_HEADER_DIALECT : dialectText;
  if (!isHeaderDialect(headerDialect)) {
    throw new ConfigError(`RATELIMIT_HEADERS must be one of ${HEADER_DIALECTS.map((d) => `"${d}"`).join(", ")}, got ${JSON.stringify(env.RATELIMIT_HEADERS)}`);
  }
  const queueSecret = env.QUEUE_SECRET && env.QUEUE_SECRET !== "" ? env.QUEUE_SECRET : undefined;
  if (queueSecret !== undefined && queueSecret.length < QUEUE_SECRET_MIN_LENGTH) {
    // The value itself is never part of the message: it is a secret.
    throw new ConfigError(`QUEUE_SECRET must be at least ${QUEUE_SECRET_MIN_LENGTH} characters, got ${queueSecret.length}`);
  }
  const proxyHeader = (env.TRUSTED_PROXY_HEADER ?? "x-forwarded-for").trim().toLowerCase();
  if (proxyHeader !== "x-forwarded-for" && proxyHeader !== "x-real-ip") {
    throw new ConfigError(`TRUSTED_PROXY_HEADER must be "x-forwarded-for" or "x-real-ip", got ${JSON.stringify(env.TRUSTED_PROXY_HEADER)}`);
  }
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
    trustedProxyHeader: proxyHeader,
    shardKey: env.SHARD_KEY !== undefined && env.SHARD_KEY !== "" ? env.SHARD_KEY : undefined,
    methodOverride: readMethodOverride(env.METHOD_OVERRIDE, (why) => new ConfigError(why)),
    encodedSlashes: readEncodedSlashes(env.ENCODED_SLASHES, (why) => new ConfigError(why)),
  };
}

function wholeNumber(given: string | undefined, name: string, fallback: number, min: number, max: number): number {
  const text = (given ?? String(fallback)).trim();
  const value = Number(text);
  if (text === "" || !Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got ${JSON.stringify(given)}`);
  }
  return value;
}
