/**
 * The headers of an admitted request (docs/headers.md), and the decision
 * headers the refusals (refusal.ts) share with it.
 */
import { DEFAULT_HEADER_DIALECT, type HeaderDialect } from "../http/header-dialect.ts";
import { DECISION_HEADER } from "../http/headers.ts";
import { rateLimitHeaders } from "../limiter/respond.ts";
import type { RateLimitResult } from "../limiter/types.ts";

/** The header FAILURE_MODE=open marks a request it let through with. */
export const FAILURE_OPEN_HEADER: readonly [string, string] = [DECISION_HEADER, "failure-open"];

/** The header a decision FAILURE_MODE=local made in the isolate is marked with. */
export const LOCAL_DECISION_HEADER: readonly [string, string] = [DECISION_HEADER, "local"];

/**
 * Headers an admitted request's response carries: the rate-limit ones in
 * `dialect`, and `X-RateLimit-Decision: failure-open` (or `local`, when
 * the isolate decided alone) when the counters could not be asked.
 *
 * @example
 * withHeaders(response, admittedHeaders(result, isolate.settings.headerDialect));
 */
export function admittedHeaders(result: RateLimitResult, dialect: HeaderDialect = DEFAULT_HEADER_DIALECT): [string, string][] {
  const headers = rateLimitHeaders(result, dialect);
  if (result.reason === "failure_open") headers.push([FAILURE_OPEN_HEADER[0], FAILURE_OPEN_HEADER[1]]);
  // A soft or not-enforced request keeps that tag, which the origin may act on (docs/rules.md, "Gradual and soft enforcement").
  else if (result.decidedLocally === true && result.reason !== "soft" && result.reason !== "not_enforced")
    headers.push([LOCAL_DECISION_HEADER[0], LOCAL_DECISION_HEADER[1]]);
  return headers;
}
