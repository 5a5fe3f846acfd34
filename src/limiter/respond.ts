/**
 * The one place a RateLimitResult becomes headers: in the chosen dialect
 * (see `src/http/header-dialect.ts`), `X-RateLimit-*` and `Retry-After`.
 * The refusals that carry them are rendered in src/admission/refusal.ts.
 * See docs/headers.md.
 */
import { DEFAULT_HEADER_DIALECT, type HeaderDialect } from "../http/header-dialect.ts";
import { DECISION_HEADER, DELAY_HEADER } from "../http/headers.ts";
import { draft11Fields } from "./headers/draft11.ts";
import { listedPolicies } from "./headers/order.ts";
import { draft6Fields, draft7Fields, resetSeconds, xRateLimitFields } from "./headers/single-policy.ts";
import { seconds } from "./headers/text.ts";
import type { RateLimitResult } from "./types.ts";

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
 * Headers describing the policies that applied, in `dialect`; none when no
 * limit applied. A rejected request also gets `Retry-After` (every dialect)
 * and `X-RateLimit-Retry-After`; a queued one (nothing to retry: it will be
 * delivered) gets `X-RateLimit-Decision: queued` instead, and a delayed one
 * `X-RateLimit-Decision: delayed` and how long it waited. A request a limit
 * refused but whose `enforce_percent` forwards it gets
 * `X-RateLimit-Decision: not-enforced`, one past a `soft_percent` limit as
 * written `soft` (docs/rules.md, "Gradual and soft enforcement").
 *
 * @example
 * for (const [name, value] of rateLimitHeaders(result, "draft-11")) response.headers.set(name, value);
 */
export function rateLimitHeaders(result: RateLimitResult, dialect: HeaderDialect = DEFAULT_HEADER_DIALECT): [string, string][] {
  if (!result.policy) return [];
  const retry = result.allowed ? 0 : retryAfterSeconds(result);
  const refused = !result.allowed && result.reason !== "queued";
  const headers: [string, string][] = [];
  if (dialect !== "none") {
    const reset = resetSeconds(result, retry);
    xRateLimitFields(result, reset, headers);
    if (dialect === "draft-11") draft11Fields(listedPolicies(result), headers);
    // Beside Retry-After, draft-6's and draft-7's reset "SHOULD reference the same point in time".
    else if (dialect === "draft-7") draft7Fields(result, refused ? retry : reset, headers);
    else draft6Fields(result, refused ? retry : reset, headers);
  }
  if (result.reason === "queued") headers.push([DECISION_HEADER, "queued"]);
  else if (refused) {
    headers.push(["Retry-After", String(retry)]);
    if (dialect !== "none") headers.push(["X-RateLimit-Retry-After", String(retry)]);
  }
  if (result.reason === "delayed") headers.push([DECISION_HEADER, "delayed"], [DELAY_HEADER, String(result.delayMs ?? 0)]);
  else if (result.reason === "not_enforced") headers.push([DECISION_HEADER, "not-enforced"]);
  else if (result.reason === "soft") headers.push([DECISION_HEADER, "soft"]);
  return headers;
}
