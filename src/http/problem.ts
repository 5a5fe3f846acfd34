/**
 * RFC 9457 problem+json responses: every error the gateway gives is one.
 */

/**
 * A problem+json response of type `about:blank`, unless `extra` names a
 * problem type URI as `type`; `extra`'s other members are its extensions.
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
 * Problem types of floodgate's own 5xx answers (docs/reliability.md,
 * "Security"): each has one fixed title and detail, never the error behind
 * it or a configuration value; the details go to the Worker's log.
 */
export const PROBLEM_TYPES = {
  /** 502: the origin (ORIGIN_URL, or the route's own origin) could not be reached. */
  originUnreachable: "urn:floodgate:origin-unreachable",
  /** 503: a `[vars]` value or secret cannot be understood. */
  misconfigured: "urn:floodgate:misconfigured",
  /** 503: the counters could not be reached in time and FAILURE_MODE is `closed`. */
  countersUnreachable: "urn:floodgate:counters-unreachable",
  /** 503: a request over an `on_limit: "queue"` limit could not be put on the queue. */
  queueUnavailable: "urn:floodgate:queue-unavailable",
} as const;

/**
 * The 502 for an origin that could not be reached; `error` and `where` go to the log only.
 *
 * @example
 * catch (error) { return originUnreachable(error, { origin: "ORIGIN_URL" }); }
 */
export function originUnreachable(error: unknown, where: Record<string, string> = {}): Response {
  console.error(JSON.stringify({ event: "floodgate.origin_unreachable", ...where, error: String(error) }));
  return problem(502, "Bad Gateway", "The origin could not be reached.", { type: PROBLEM_TYPES.originUnreachable });
}
