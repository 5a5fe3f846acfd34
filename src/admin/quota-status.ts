/**
 * `GET /__ratelimit/status?method=M&path=P` (docs/admin-api.md, "Status"):
 * the caller's own quotas for a route, spending nothing. No token: the
 * answer is computed from the caller's own request (its address, headers,
 * cookies, and the query inside `path`), mapped exactly as a real `M P`
 * would be, so it can only name counters keyed on values the caller sent;
 * this endpoint's own query parameters key nothing. Every limit is read
 * with a cost of 0 (the algorithms take nothing for it), through the same
 * decision engine as a real request, so pre-counted and relayed counters
 * count the unsynced hits of the isolate or region asked. Reads are
 * limited per client address (src/admission/client-limit.ts).
 */
import type { Context } from "hono";
// One policy as the endpoint reports it: the shape floodgate/client reads back (docs/client.md).
import type { QuotaPolicy } from "../client/status.ts";
import { clientLimit, countersUnreachable, admitDescriptors, rateLimitHeaders } from "../admission/index.ts";
import type { Env } from "../config.ts";
import type { IsolateOf } from "../admission/isolate-context.ts";
import { adminPath } from "../http/admin-path.ts";
import { deferOf } from "../http/defer.ts";
import { problem } from "../http/problem.ts";
import type { PolicyOutcome } from "../limiter/types.ts";
import { InvalidClientIpError } from "../request/client-ip.ts";
import { RequestCostError } from "../request/cost.ts";
import { AmbiguousTokenError, mayCarryToken, readsClaims, requestClaims } from "../identity/claims.ts";
import { claimDomains, DuplicateValueError, requestDescriptors } from "../request/descriptors.ts";
import { requestRegion } from "../request/location.ts";
import type { DomainDescriptors } from "../rules/types.ts";
import { parseStatusQuery } from "./status-query.ts";

/** Status reads one client address may make per minute. */
export const QUOTA_STATUS_READS_PER_MINUTE = 60;

/** The internal domain that counts status reads. */
export const QUOTA_STATUS_DOMAIN = "__floodgate_quota_status";

const limitReads = clientLimit({ domain: QUOTA_STATUS_DOMAIN, name: "quota-status", perMinute: QUOTA_STATUS_READS_PER_MINUTE });

const RETRY_HEADERS = new Set(["Retry-After", "X-RateLimit-Retry-After"]);

/**
 * Answer the caller's quotas for the route the query names.
 *
 * @example
 * app.get("/__ratelimit/status", (c) => quotaStatus(c, isolateOf));
 */
export async function quotaStatus<E extends { Bindings: Env }>(c: Context<E>, isolateOf: IsolateOf): Promise<Response> {
  const sent = c.req.raw;
  const url = new URL(sent.url);
  const query = parseStatusQuery(url.searchParams);
  if (!query.ok) return problem(400, "Bad Request", query.message);
  const asked = new Request(url.origin + query.path, { method: query.method, headers: sent.headers });
  if (adminPath(asked.url) !== "none")
    return problem(400, "Bad Request", "path names a floodgate endpoint (/__ratelimit/…): those are never rate limited by the rules.");
  const isolate = isolateOf(c.env);
  const defer = deferOf(c);
  const { settings } = isolate;
  let descriptors: DomainDescriptors[];
  try {
    const refused = await limitReads(isolate, sent, defer);
    if (refused) return refused;
    const pending = isolate.currentRules(defer);
    const rules = pending instanceof Promise ? await pending : pending;
    // A token's claims key the caller's own counters exactly as on a real request (docs/rules.md, "Verified identity (jwt)").
    const domains = readsClaims(rules) && mayCarryToken(rules, asked.headers) ? claimDomains(rules, asked, settings) : [];
    const claims = domains.length > 0 ? await requestClaims(rules, asked, isolate.secrets, isolate.now(), domains) : undefined;
    descriptors = requestDescriptors(rules, asked, claims === undefined ? settings : { ...settings, claims });
  } catch (error) {
    if (
      error instanceof InvalidClientIpError ||
      error instanceof DuplicateValueError ||
      error instanceof RequestCostError ||
      error instanceof AmbiguousTokenError
    )
      return problem(400, "Bad Request", error.message);
    throw error;
  }
  // Every descriptor read at cost 0: nothing taken, nothing charged from the response.
  const reads = descriptors.map(({ costFromResponse: _charged, costs: _costs, ...domain }) => ({ ...domain, costs: domain.descriptors.map(() => 0) }));
  const where = () => ({ path: "/__ratelimit/status" });
  const result = await admitDescriptors(
    isolate,
    reads,
    { cost: 0, timeoutMs: settings.decisionTimeoutMs, defer, where, region: requestRegion(sent), countOutcomes: false },
    defer,
  );
  // A guess made without the counters is no status.
  if (result.reason === "failure_open" || result.reason === "failure_closed" || result.decidedLocally === true) return countersUnreachable();
  // A status is never a refusal: a limit of 0 reads as refused, but its reset is in the body, not a Retry-After.
  const headers = new Headers(rateLimitHeaders(result, settings.headerDialect).filter(([name]) => !RETRY_HEADERS.has(name)));
  headers.set("Cache-Control", "no-store");
  return Response.json({ policies: result.policies.filter((p) => !p.shadow).map(describe) }, { headers });
}

function describe(policy: PolicyOutcome): QuotaPolicy {
  const d = policy.decision;
  return {
    name: policy.name,
    limit: d.limit,
    remaining: d.remaining,
    reset_after_s: Math.max(0, Math.ceil(d.resetAfterMs / 1000)),
    window_s: policy.windowMs / 1000,
  };
}
