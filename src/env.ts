/**
 * Bindings and variables the worker reads (wrangler.toml `[vars]`, secrets,
 * `.dev.vars`). Every variable is optional text; `readSettings` turns them
 * into typed settings with the defaults of SPEC section 2.
 */
import type { CounterObject } from "./durable/counter-object.ts";

export interface Env {
  COUNTERS: DurableObjectNamespace<CounterObject>;
  ORIGIN_URL?: string;
  ADMIN_TOKEN?: string;
  FAILURE_MODE?: string;
  DECISION_TIMEOUT_MS?: string;
}

/** Typed, defaulted view of the environment. */
export interface Settings {
  readonly originUrl?: URL;
  readonly adminToken?: string;
  readonly failureMode: "open" | "closed";
  readonly decisionTimeoutMs: number;
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
  return { originUrl, adminToken, failureMode, decisionTimeoutMs };
}

// Settings parse once per env object, not once per request.
const settingsCache = new WeakMap<object, Settings>();

/**
 * `readSettings`, memoised per env object (the runtime reuses it across requests).
 *
 * @example
 * if (settingsOf(env).originUrl) { ... }
 */
export function settingsOf(env: Env): Settings {
  let settings = settingsCache.get(env);
  if (!settings) settingsCache.set(env, (settings = readSettings(env)));
  return settings;
}
