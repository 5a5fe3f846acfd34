/**
 * The built-in origin, used when ORIGIN_URL is unset.
 */
// @ts-nocheck

import type { RateLimitResult } from "../limiter/types.ts";

/**
 * The built-in origin: a 200 JSON echo of the request and the decision.
 *
 * @example
 * const response = echo(request, result); // {"echo":{"method":"GET",...},"rate_limit":{...}}
 */
export function echo(request: Request, result: RateLimitResult): Response {
  const url = new URL(request.url);
  const body = {
    echo: {
      method: request.method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: Object.fromEntries(request.headers),
    },
    rate_limit: {
      allowed: result.allowed,
      reason: result.reason,
      policy: result.policy?.name ?? null,
      limit: result.limit,
      remaining: result.remaining,
      reset_after_ms: result.resetAfterMs,
      ...(result.delayMs ? { delay_ms: result.delayMs } : {}),
    },
  };
  return Response.json(body, { headers: { "cache-control": "no-store" } });
}
