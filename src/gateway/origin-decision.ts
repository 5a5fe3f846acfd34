/**
 * What the origin is told of a decision that forwarded a request past a
 * limit (docs/rules.md, "Gradual and soft enforcement"; docs/headers.md):
 * `X-RateLimit-Decision: not-enforced` (refused, but its `enforce_percent`
 * forwards this key), `soft` (past a `soft_percent` limit as written, within
 * its ceiling) or `shadow` (a shadow limit, or SHADOW_MODE, would have
 * refused it). The origin is the one that acts on these (warn the customer,
 * log); a client's own copy of the header never reaches it
 * (src/http/forward.ts, isDroppedHeader; `toldRequest` for the handlers
 * after the Hono middleware), so the origin can trust it.
 */
import { DECISION_HEADER, DELAY_HEADER } from "../http/headers.ts";
import type { RateLimitResult } from "../limiter/types.ts";

/** A value of `X-RateLimit-Decision` the origin receives. */
export type OriginDecision = "not-enforced" | "soft" | "shadow";

/**
 * The decision to tell the origin of `result`, or undefined for a plain allow.
 *
 * @example
 * originDecision(result); // "soft" for a request past a soft_percent limit, within its ceiling
 */
export function originDecision(result: RateLimitResult): OriginDecision | undefined {
  switch (result.reason) {
    case "not_enforced":
      return "not-enforced";
    case "soft":
      return "soft";
    case "shadow":
      return "shadow";
  }
  // A shadow_mode limit's would-be refusal leaves the reason as the enforced limits made it.
  for (const policy of result.policies) if (policy.shadow && !policy.decision.allowed) return "shadow";
  return undefined;
}

const DECISION_NAMES: ReadonlySet<string> = new Set([DECISION_HEADER.toLowerCase(), DELAY_HEADER.toLowerCase()]);

/**
 * The request the handlers after the Hono middleware get (docs/hono.md,
 * "What the handlers are told"): a client's own `X-RateLimit-Decision` and
 * `X-RateLimit-Delay-Ms`, in any spelling (`_` for `-`), removed, and
 * `decision` set when there is one; `request` itself when there is nothing
 * to change (the common case costs a look at the header names, no copy).
 *
 * @example
 * c.req.raw = toldRequest(c.req.raw, originDecision(result)); // handlers read c.req.header("X-RateLimit-Decision") === "soft"
 */
export function toldRequest(request: Request, decision: OriginDecision | undefined): Request {
  const forged: string[] = [];
  for (const name of request.headers.keys()) if (DECISION_NAMES.has(name.indexOf("_") < 0 ? name : name.replaceAll("_", "-"))) forged.push(name);
  if (decision === undefined && forged.length === 0) return request;
  const headers = new Headers(request.headers);
  for (const name of forged) headers.delete(name);
  if (decision !== undefined) headers.set(DECISION_HEADER, decision);
  return new Request(request, { headers });
}
