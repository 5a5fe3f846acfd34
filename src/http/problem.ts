/**
 * RFC 9457 problem+json responses: every error the gateway gives is one.
 */
import type { RateLimitResult } from "../limiter/types.ts";
import { rateLimitHeaders, retryAfterSeconds } from "./headers.ts";

/**
 * A problem+json response.
 *
 * @example
 * return problem(400, "Bad Request", "CF-Connecting-IP is not an IP address");
 */
export function problem(status: number, title: string, detail: string, extra: Record<string, unknown> = {}, headers: HeadersInit = {}): Response {
  const body = JSON.stringify({ type: "about:blank", title, status, detail, ...extra });
  const response = new Response(body, { status, headers });
  response.headers.set("content-type", "application/problem+json");
  return response;
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
  return problem(429, "Too Many Requests", detail, { retry_after: retryAfter, policy: policy?.name, limit: result.limit, remaining: 0 }, rateLimitHeaders(result));
}
