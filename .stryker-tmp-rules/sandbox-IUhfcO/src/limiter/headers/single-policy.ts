/**
 * The dialects that describe one policy, the most restrictive: the
 * `X-RateLimit-*` family (every dialect but `none`), and the IETF drafts
 * as express-rate-limit sends them (docs/headers.md):
 *
 *   draft-7:  RateLimit: limit=100, remaining=42, reset=17
 *             RateLimit-Policy: 100;w=60
 *   draft-6:  RateLimit-Limit: 100
 *             RateLimit-Remaining: 42
 *             RateLimit-Reset: 17
 *             RateLimit-Policy: 100;w=60
 *
 * `reset` in these drafts is the seconds until the quota resets, the same
 * figure as `X-RateLimit-Reset`; on a 429 the drafts want it to name the
 * same moment as `Retry-After`, so the caller passes that instead.
 */
// @ts-nocheck

import type { RateLimitResult } from "../types.ts";
import { seconds } from "./text.ts";

/**
 * Seconds until `result`'s quota resets, never earlier than `retrySeconds`
 * (a rejected request's wait): the `reset` of every single-policy dialect.
 *
 * @example
 * resetSeconds(result, 0); // 17
 */
export function resetSeconds(result: RateLimitResult, retrySeconds: number): number {
  return Math.max(seconds(result.resetAfterMs), retrySeconds);
}

/**
 * Append `X-RateLimit-Limit`, `-Remaining` and `-Reset`.
 *
 * @example
 * xRateLimitFields(result, resetSeconds(result, 0), headers);
 */
export function xRateLimitFields(result: RateLimitResult, reset: number, headers: [string, string][]): void {
  headers.push(["X-RateLimit-Limit", String(result.limit)], ["X-RateLimit-Remaining", String(result.remaining)], ["X-RateLimit-Reset", String(reset)]);
}

/** draft-6's and draft-7's `RateLimit-Policy`: the quota and its window in seconds. */
function policyField(result: RateLimitResult): [string, string] {
  return ["RateLimit-Policy", `${result.limit};w=${seconds(result.policy?.windowMs ?? 0)}`];
}

/**
 * Append draft-7's combined `RateLimit` and its `RateLimit-Policy`.
 *
 * @example
 * draft7Fields(result, 17, headers); // RateLimit: limit=100, remaining=42, reset=17
 */
export function draft7Fields(result: RateLimitResult, reset: number, headers: [string, string][]): void {
  headers.push(["RateLimit", `limit=${result.limit}, remaining=${result.remaining}, reset=${reset}`], policyField(result));
}

/**
 * Append draft-6's three `RateLimit-*` fields and its `RateLimit-Policy`.
 *
 * @example
 * draft6Fields(result, 17, headers); // RateLimit-Limit: 100, RateLimit-Remaining: 42, …
 */
export function draft6Fields(result: RateLimitResult, reset: number, headers: [string, string][]): void {
  headers.push(
    ["RateLimit-Limit", String(result.limit)],
    ["RateLimit-Remaining", String(result.remaining)],
    ["RateLimit-Reset", String(reset)],
    policyField(result),
  );
}
