/**
 * The admission pipeline's HTTP answers (docs/headers.md): the 429, the
 * 503 of FAILURE_MODE=closed, and the headers of an admitted request. Every
 * HTTP face answers with these, so a refusal looks the same whichever way
 * the request came in.
 */
import { DEFAULT_HEADER_DIALECT, type HeaderDialect } from "../http/header-dialect.ts";
import { DECISION_HEADER } from "../http/headers.ts";
import { PROBLEM_TYPES, problem } from "../http/problem.ts";
import { rateLimitHeaders, tooManyRequests } from "../limiter/respond.ts";
import type { RateLimitResult } from "../limiter/types.ts";

/** The header FAILURE_MODE=open marks a request it let through with. */
export const FAILURE_OPEN_HEADER: readonly [string, string] = [DECISION_HEADER, "failure-open"];

/** The header a decision FAILURE_MODE=local made in the isolate is marked with. */
export const LOCAL_DECISION_HEADER: readonly [string, string] = [DECISION_HEADER, "local"];

/** What the 503 of FAILURE_MODE=closed says (never the error behind it: that goes to the log). */
export const COUNTERS_UNREACHABLE_DETAIL = "The rate limiter could not reach its counters; try again shortly.";

/**
 * The 503 of FAILURE_MODE=closed: problem+json of type
 * `urn:floodgate:counters-unreachable`, `Retry-After: 1` and
 * `X-RateLimit-Decision: failure-closed`.
 *
 * @example
 * if (result.reason === "failure_closed") return countersUnreachableResponse();
 */
export function countersUnreachableResponse(): Response {
  return problem(
    503,
    "Service Unavailable",
    COUNTERS_UNREACHABLE_DETAIL,
    { type: PROBLEM_TYPES.countersUnreachable, retry_after: 1 },
    { "Retry-After": "1", [DECISION_HEADER]: "failure-closed" },
  );
}

/**
 * The answer to a refused request: the 503 when FAILURE_MODE=closed refused
 * it, else the 429 in `dialect`.
 *
 * @example
 * if (!result.allowed) return refusal(result, settings.headerDialect);
 */
export function refusal(result: RateLimitResult, dialect: HeaderDialect = DEFAULT_HEADER_DIALECT): Response {
  if (result.reason === "failure_closed") return countersUnreachableResponse();
  const response = tooManyRequests(result, dialect);
  if (result.decidedLocally === true) response.headers.set(LOCAL_DECISION_HEADER[0], LOCAL_DECISION_HEADER[1]);
  return response;
}

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
