/**
 * The one place a RateLimitResult becomes HTTP: its headers (the
 * `RateLimit` fields, `X-RateLimit-*`, `Retry-After`) and the 429.
 * See docs/headers.md.
 */
import { DECISION_HEADER, DELAY_HEADER } from "../http/headers.ts";
import { problem } from "../http/problem.ts";
import type { RateLimitResult } from "./types.ts";

/** Whole seconds, rounded up so a client never retries too early. */
function seconds(ms: number): number {
  return Math.max(0, Math.ceil(ms / 1000));
}

/** An RFC 8941 sf-string. */
function sfString(text: string): string {
  return `"${text.replace(/[\\"]/g, (c) => `\\${c}`).replace(/[^\x20-\x7e]/g, "?")}"`;
}

// Policy names come from the rules, so there are few: quote each once.
const quoted = new Map<string, string>();
const QUOTED_MAX = 1_000;

function quotedName(name: string): string {
  let text = quoted.get(name);
  if (text === undefined) {
    text = sfString(name);
    if (quoted.size >= QUOTED_MAX) quoted.clear();
    quoted.set(name, text);
  }
  return text;
}

/**
 * Seconds a rejected client must wait: exact retry-after rounded up, or,
 * when the request can never fit (limit 0, cost above capacity), the
 * policy's window, so clients back off instead of spinning.
 *
 * @example
 * retryAfterSeconds(result); // 17
 */
export function retryAfterSeconds(result: RateLimitResult): number {
  if (Number.isFinite(result.retryAfterMs)) return Math.max(1, seconds(result.retryAfterMs));
  return Math.max(1, seconds(result.policy?.windowMs ?? 1000));
}

/**
 * Headers describing the most restrictive policy; none when no limit applied.
 * A rejected request also gets `Retry-After` and `X-RateLimit-Retry-After`;
 * a queued one (nothing to retry: it will be delivered) gets
 * `X-RateLimit-Decision: queued` instead, and a delayed one
 * `X-RateLimit-Decision: delayed` and how long it waited.
 *
 * @example
 * for (const [name, value] of rateLimitHeaders(result)) response.headers.set(name, value);
 */
export function rateLimitHeaders(result: RateLimitResult): [string, string][] {
  const policy = result.policy;
  if (!policy) return [];
  const retry = result.allowed ? 0 : retryAfterSeconds(result);
  const reset = Math.max(seconds(result.resetAfterMs), retry);
  const name = quotedName(policy.name);
  const headers: [string, string][] = [
    ["X-RateLimit-Limit", String(result.limit)],
    ["X-RateLimit-Remaining", String(result.remaining)],
    ["X-RateLimit-Reset", String(reset)],
    ["RateLimit-Policy", `${name};q=${result.limit};w=${seconds(policy.windowMs)}`],
    ["RateLimit", `${name};r=${result.remaining};t=${reset}`],
  ];
  if (result.reason === "queued") headers.push([DECISION_HEADER, "queued"]);
  else if (!result.allowed) headers.push(["Retry-After", String(retry)], ["X-RateLimit-Retry-After", String(retry)]);
  if (result.reason === "delayed") headers.push([DECISION_HEADER, "delayed"], [DELAY_HEADER, String(result.delayMs ?? 0)]);
  return headers;
}

/**
 * The 429 for a request over its limit, with every rate-limit header.
 *
 * @example
 * if (!result.allowed) return tooManyRequests(result);
 */
export function tooManyRequests(result: RateLimitResult): Response {
  const retryAfter = retryAfterSeconds(result);
  const policy = result.policy;
  const what = policy ? `${policy.name} (${policy.descriptor.map((e) => e.key).join(", ")})` : "rate limit";
  const detail = `Rate limit exceeded for ${what}: ${result.limit} requests per ${policy ? policy.windowMs / 1000 : 0} s; retry in ${retryAfter} s.`;
  return problem(
    429,
    "Too Many Requests",
    detail,
    { retry_after: retryAfter, policy: policy?.name, limit: result.limit, remaining: 0 },
    rateLimitHeaders(result),
  );
}
