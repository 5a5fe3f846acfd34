/**
 * Every 429 and 503 floodgate sends, rendered here and nowhere else
 * (docs/headers.md, "Refusals"): the gateway's, the middlewares' and the
 * built-in client limits' (from one RateLimitResult), the admin
 * authentication throttle's, the queue's, `/json`'s, and the 503s of a
 * configuration floodgate cannot run with.
 *
 * One shape: `application/problem+json` with `type`, `title`, `status` and
 * `detail`; a refusal the client may retry also has `Retry-After` (whole
 * seconds) and `retry_after` in its body, and, when the result came from
 * the isolate alone, `X-RateLimit-Decision: local`. A result's rate-limit
 * headers are made in one place, `rateLimitHeaders` (src/limiter/respond.ts),
 * and a result's 429 body there too, kept per limit for the hot path.
 */
import type { HeaderDialect } from "../http/header-dialect.ts";
import { DECISION_HEADER } from "../http/headers.ts";
import { PROBLEM_TYPES, problem } from "../http/problem.ts";
import { tooManyRequests } from "./quota-exceeded.ts";
import type { RateLimitResult } from "../limiter/types.ts";
import { LOCAL_DECISION_HEADER } from "./render.ts";

/** What the 503 of FAILURE_MODE=closed says (never the error behind it: that goes to the log). */
export const COUNTERS_UNREACHABLE_DETAIL = "The rate limiter could not reach its counters; try again shortly.";

/** A refusal's retry, beside its problem: the seconds to wait and the headers it carries beyond Retry-After. */
interface Retry {
  readonly seconds: number;
  readonly headers?: readonly (readonly [string, string])[];
}

// The one problem+json refusal: Retry-After and retry_after together, when the client may retry.
function render(status: 429 | 503, title: string, detail: string, type: string | undefined, retry: Retry | undefined): Response {
  const extra: Record<string, unknown> = type === undefined ? {} : { type };
  if (retry === undefined) return problem(status, title, detail, extra);
  const headers = new Headers([["Retry-After", String(retry.seconds)], ...(retry.headers ?? [])]);
  return problem(status, title, detail, { ...extra, retry_after: retry.seconds }, headers);
}

// The local-decision header when the isolate decided alone, for a refusal made from a result.
function decidedBy(result: RateLimitResult): (readonly [string, string])[] {
  return result.decidedLocally === true ? [LOCAL_DECISION_HEADER] : [];
}

/**
 * The answer to a refused request: the 503 when FAILURE_MODE=closed refused
 * it, else the 429 in `dialect` (every rate-limit header, a problem+json of
 * draft-11's `quota-exceeded` type), marked `X-RateLimit-Decision: local`
 * when the isolate decided alone.
 *
 * @example
 * if (!result.allowed) return refusal(result, settings.headerDialect);
 */
export function refusal(result: RateLimitResult, dialect?: HeaderDialect): Response {
  if (result.reason === "failure_closed") return countersUnreachable();
  const response = tooManyRequests(result, dialect);
  if (result.decidedLocally === true) response.headers.set(LOCAL_DECISION_HEADER[0], LOCAL_DECISION_HEADER[1]);
  return response;
}

/**
 * The 503 of FAILURE_MODE=closed: problem+json of type
 * `urn:floodgate:counters-unreachable`, `Retry-After: 1` and
 * `X-RateLimit-Decision: failure-closed`.
 *
 * @example
 * if (answer.kind === "unavailable") return countersUnreachable();
 */
export function countersUnreachable(): Response {
  return render(503, "Service Unavailable", COUNTERS_UNREACHABLE_DETAIL, PROBLEM_TYPES.countersUnreachable, {
    seconds: 1,
    headers: [[DECISION_HEADER, "failure-closed"]],
  });
}

/**
 * The 503 of a request over a queue limit that could not be queued (nothing
 * was consumed for it): `Retry-After: 1`, and the local-decision header of
 * its result.
 *
 * @example
 * return queueUnavailable(result);
 */
export function queueUnavailable(result: RateLimitResult): Response {
  const detail = "The request could not be queued; try again shortly.";
  return render(503, "Service Unavailable", detail, PROBLEM_TYPES.queueUnavailable, { seconds: 1, headers: decidedBy(result) });
}

/**
 * The admin authentication throttle's 429 (docs/admin-api.md,
 * "Authentication"): only `Retry-After`, no rate-limit headers (its limit is
 * floodgate's, not the operator's).
 *
 * @example
 * return tooManyAuthFailures(17, AUTH_FAILURES_PER_MINUTE);
 */
export function tooManyAuthFailures(seconds: number, perMinute: number): Response {
  const detail = `Too many failed authentications from this address (at most ${perMinute} a minute); retry in ${seconds} s.`;
  return render(429, "Too Many Requests", detail, undefined, { seconds });
}

/**
 * `/json`'s answer to a decision (Envoy's body, not a problem): 429 when it
 * is OVER_LIMIT, else 200; marked `X-RateLimit-Decision: failure-open` when
 * FAILURE_MODE=open answered it.
 *
 * @example
 * return decisionAnswer(answer.response, answer.response.overallCode === "OVER_LIMIT", answer.failureOpen === true);
 */
export function decisionAnswer(body: object, overLimit: boolean, failureOpen: boolean): Response {
  const headers: [string, string][] = failureOpen ? [[DECISION_HEADER, "failure-open"]] : [];
  return Response.json(body, { status: overLimit ? 429 : 200, headers });
}

/**
 * The 503 of the admin endpoints while ADMIN_TOKEN is refused (too short):
 * no retry helps until the operator sets another.
 *
 * @example
 * if (settings.adminTokenRefused !== undefined) return adminApiOff(settings.adminTokenRefused);
 */
export function adminApiOff(detail: string): Response {
  return render(503, "Service Unavailable", detail, undefined, undefined);
}

/**
 * The 503 for a configuration floodgate cannot run with; `error` (naming the
 * setting and its value) goes to the log only. No retry helps until the
 * operator fixes it.
 *
 * @example
 * if (error instanceof ConfigError) return misconfigured(error);
 */
export function misconfigured(error: unknown): Response {
  console.error(JSON.stringify({ event: "floodgate.misconfigured", error: error instanceof Error ? error.message : String(error) }));
  const detail = "floodgate is misconfigured; the operator can find the reason in the Worker's log.";
  return render(503, "Service Unavailable", detail, PROBLEM_TYPES.misconfigured, undefined);
}
