/**
 * The RPC form of ShouldRateLimit: the answer of `POST /__ratelimit/json`
 * as a return value, its errors as thrown ones.
 */
import { settingsOf, type Env } from "../config.ts";
import type { EnvoyResponse } from "./response.ts";
import { shouldRateLimit } from "./service.ts";
import type { LiveRules } from "../rules/live.ts";

type Defer = (work: Promise<unknown>) => void;

/**
 * Decide `request` (the `/json` body as an object). A malformed request
 * throws a TypeError naming the JSON path (HTTP would answer 400); counters
 * unreachable with FAILURE_MODE=closed throw an Error (HTTP 503). With
 * FAILURE_MODE=open every descriptor comes back OK.
 *
 * @example
 * const response = await callShouldRateLimit(env, live, { domain: "api", descriptors: [...] }, defer);
 * response.overallCode; // "OK" or "OVER_LIMIT"
 */
export async function callShouldRateLimit(env: Env, live: LiveRules, request: unknown, defer: Defer): Promise<EnvoyResponse> {
  const safeDefer: Defer = (work) => defer(work.catch((error: unknown) => {
    console.error(JSON.stringify({ event: "floodgate.background_failed", error: String(error) }));
  }));
  const pending = live.current(env, settingsOf(env).decisionTimeoutMs, safeDefer);
  const rules = pending instanceof Promise ? await pending : pending;
  const answer = await shouldRateLimit(env, rules, request, safeDefer);
  if (answer.kind === "invalid") throw new TypeError(`invalid RateLimitRequest: ${answer.path}: ${answer.message}`);
  if (answer.kind === "unavailable") throw new Error(`floodgate unavailable: ${answer.message}`);
  return answer.response;
}
