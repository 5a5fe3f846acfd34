/**
 * Where an allowed request goes when ORIGIN_URL is unset: on a zone route,
 * on to that route's own origin (`fetch(request)`); under `wrangler dev` or
 * on workers.dev, where no origin is behind the hostname, the built-in echo
 * (docs/operations.md, "Configuration": ORIGIN_URL).
 */
import { forwardHeaders } from "../http/forward.ts";
import { DECISION_HEADER } from "../http/headers.ts";
import { originUnreachable, problem } from "../http/problem.ts";
import { hasRouteOrigin } from "../http/origin-host.ts";
import type { RateLimitResult } from "../limiter/types.ts";
import { echo } from "./echo.ts";

/**
 * Set on every request passed on to a route's origin. A request arriving
 * with it came back to this Worker instead of reaching an origin (a route
 * that leads to itself), so it is answered 508 rather than sent round again.
 */
export const HOP_HEADER = "X-Floodgate-Hop";

/**
 * The answer for an allowed request with no ORIGIN_URL. With `mutable`, its
 * headers can be set; with `decision`, a route's origin gets it as
 * `X-RateLimit-Decision` (src/gateway/origin-decision.ts).
 *
 * @example
 * if (!settings.originUrl) return withoutOrigin(request, result, true);
 */
export async function withoutOrigin(request: Request, result: RateLimitResult, mutable: boolean, decision?: string): Promise<Response> {
  const host = new URL(request.url).hostname;
  if (!hasRouteOrigin(host)) return echo(request, result);
  if (request.headers.has(HOP_HEADER)) {
    return problem(
      508,
      "Loop Detected",
      "This request came back to floodgate after floodgate passed it on to the route's origin: ORIGIN_URL is unset and the route leads to this Worker again. Set ORIGIN_URL to your API's address.",
    );
  }
  // A client's copies of floodgate's own headers are not passed on (docs/on-limit.md).
  const headers = forwardHeaders(request.headers);
  headers.set(HOP_HEADER, "1");
  if (decision !== undefined) headers.set(DECISION_HEADER, decision);
  try {
    // Same zone: Cloudflare sends this subrequest to the zone's origin, not to a Worker route.
    const upstream = await fetch(new Request(request, { headers, redirect: "manual" }));
    return mutable ? new Response(upstream.body, upstream) : upstream;
  } catch (error) {
    return originUnreachable(error, { origin: "route", host });
  }
}
