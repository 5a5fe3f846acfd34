/**
 * Bindings and variables the worker reads (wrangler.toml `[vars]`, secrets,
 * `.dev.vars`). Every variable is optional text; `readSettings` turns them
 * into typed settings with the defaults docs/operations.md ("Configuration") documents.
 */
// @ts-nocheck

import type { CounterObject } from "./durable/counter-object.ts";
import type { MetricsObject } from "./metrics/metrics-object.ts";
import type { QueueStatusObject } from "./queue/status-object.ts";
import type { QueuedMessage } from "./queue/message.ts";
import type { RulesObject } from "./rules/rules-object.ts";
import { DEFAULT_HEADER_DIALECT, HEADER_DIALECTS, type HeaderDialect, isHeaderDialect } from "./http/header-dialect.ts";

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
}

/** Typed, defaulted view of the environment. */
export interface Settings {
  readonly originUrl?: URL;
  readonly adminToken?: string;
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
}

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
  const adminToken = env.ADMIN_TOKEN && env.ADMIN_TOKEN !== "" ? env.ADMIN_TOKEN : undefined;
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
  return {
    originUrl,
    adminToken,
    failureMode,
    decisionTimeoutMs,
    shadowMode: shadowText === "true",
    metricsFlushMs,
    trustedProxyHops,
    queueMaxAttempts,
    queueRetryBaseSeconds,
    headerDialect,
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
