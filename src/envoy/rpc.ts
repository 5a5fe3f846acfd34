/**
 * The RPC form of ShouldRateLimit: the answer of `POST /__ratelimit/json`
 * as a return value, its errors as thrown ones.
 */
import type { Isolate } from "../admission/isolate-context.ts";
import type { Defer } from "../http/defer.ts";
import type { EnvoyResponse } from "./response.ts";
import { shouldRateLimit } from "./service.ts";

/**
 * Decide `request` (the `/json` body as an object). A malformed request
 * throws a TypeError naming the JSON path (HTTP would answer 400); counters
 * unreachable with FAILURE_MODE=closed throw an Error (HTTP 503). With
 * FAILURE_MODE=open every descriptor comes back OK.
 *
 * @example
 * const response = await callShouldRateLimit(isolate, { domain: "api", descriptors: [...] }, defer);
 * response.overallCode; // "OK" or "OVER_LIMIT"
 */
export async function callShouldRateLimit(isolate: Isolate, request: unknown, defer: Defer): Promise<EnvoyResponse> {
  const safeDefer: Defer = (work) =>
    defer(
      work.catch((error: unknown) => {
        console.error(JSON.stringify({ event: "floodgate.background_failed", error: String(error) }));
      }),
    );
  const rules = await isolate.currentRules(safeDefer);
  const answer = await shouldRateLimit(isolate, rules, request, safeDefer);
  if (answer.kind === "invalid") throw new TypeError(`invalid RateLimitRequest: ${answer.path}: ${answer.message}`);
  if (answer.kind === "unavailable") throw new Error(`floodgate unavailable: ${answer.message}`);
  return answer.response;
}
