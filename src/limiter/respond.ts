/**
 * The one place a RateLimitResult becomes HTTP: its headers in the chosen
 * dialect (see `src/http/header-dialect.ts`), `X-RateLimit-*`,
 * `Retry-After`, and the 429. See docs/headers.md.
 */
import { DEFAULT_HEADER_DIALECT, type HeaderDialect } from "../http/header-dialect.ts";
import { DECISION_HEADER, DELAY_HEADER } from "../http/headers.ts";
import { ZERO_LIMIT } from "../rules/facts.ts";
import { draft11Fields } from "./headers/draft11.ts";
import { listedPolicies, violatedPolicies } from "./headers/order.ts";
import { draft6Fields, draft7Fields, resetSeconds, xRateLimitFields } from "./headers/single-policy.ts";
import { seconds } from "./headers/text.ts";
import { type Fixed429, keptOf } from "./kept.ts";
import type { RateLimitResult } from "./types.ts";

/** draft-ietf-httpapi-ratelimit-headers-11's problem type for a request over its quota (its IANA registration). */
export const QUOTA_EXCEEDED_TYPE = "https://iana.org/assignments/http-problem-types#quota-exceeded";

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

/**
 * The 429 for a request over its limit: every rate-limit header of
 * `dialect`, and a problem+json body of draft-11's `quota-exceeded` type
 * naming the policies that refused it in `violated-policies`.
 *
 * @example
 * if (!result.allowed) return tooManyRequests(result, settings.headerDialect);
 */
export function tooManyRequests(result: RateLimitResult, dialect: HeaderDialect = DEFAULT_HEADER_DIALECT): Response {
  const fixed = fixedRefusal(result, dialect);
  // The Response copies the Headers (so nobody can change the kept ones), cheaper than converting a list of pairs.
  if (fixed !== undefined) return new Response(fixed.body, { status: 429, headers: fixed.headers });
  const retryAfter = retryAfterSeconds(result);
  const headers = rateLimitHeaders(result, dialect);
  headers.push(["content-type", "application/problem+json"]);
  return new Response(quotaExceededBody(result, retryAfter), { status: 429, headers: keptHeaders(result.policy?.rule, headers) });
}

// Per compiled limit, kept with it (kept.ts): its last 429's headers. A blocked key's differ only when their
// seconds do, so most 429s reuse them, and the Response copies a kept Headers for less than it turns a list into one.
function keptHeaders(rule: object | undefined, list: [string, string][]): Headers | [string, string][] {
  const kept = keptOf(rule);
  if (kept === undefined) return list;
  const last = kept.headers429;
  if (last !== undefined && sameList(last.list, list)) return last.headers;
  const headers = new Headers(list);
  kept.headers429 = { list, headers };
  return headers;
}

function sameList(a: readonly [string, string][], b: readonly [string, string][]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i][0] !== b[i][0] || a[i][1] !== b[i][1]) return false;
  return true;
}

// The 429 of a request refused by one limit of 0 alone (its decision the rules' own ZERO_LIMIT), else undefined.
// No counter state changes a limit of 0's answer (src/rules/facts.ts), so its headers and body never change
// either: made once per header dialect and kept with the limit, not made per request.
function fixedRefusal(result: RateLimitResult, dialect: HeaderDialect): Fixed429 | undefined {
  const policy = result.policy;
  if (policy?.rule === undefined || policy.decision !== ZERO_LIMIT || result.policies.length !== 1 || result.reason !== "limited") return undefined;
  if (result.limit !== 0 || result.remaining !== 0 || result.resetAfterMs !== 0 || result.retryAfterMs !== Infinity) return undefined;
  const kept = keptOf(policy.rule);
  let fixed = kept?.zero429?.[dialect];
  if (
    fixed === undefined ||
    fixed.name !== policy.name ||
    fixed.windowMs !== policy.windowMs ||
    fixed.unit !== policy.quotaUnit ||
    !sameKeys(fixed.keys, policy.descriptor)
  ) {
    const headers = rateLimitHeaders(result, dialect);
    headers.push(["content-type", "application/problem+json"]);
    const body = bodyText(result, violatedPolicies(result), retryAfterSeconds(result));
    fixed = {
      name: policy.name,
      windowMs: policy.windowMs,
      unit: policy.quotaUnit,
      keys: policy.descriptor.map((e) => e.key),
      headers: new Headers(headers),
      body,
    };
    if (kept !== undefined) (kept.zero429 ??= {})[dialect] = fixed;
  }
  return fixed;
}

const RETRY_SLOT = "\u0001retry\u0001";
// The slot as JSON.stringify writes it, in the detail and (quoted) as retry_after.
const RETRY_SLOT_IN_TEXT = JSON.stringify(RETRY_SLOT).slice(1, -1);

// Per compiled limit, kept with it (kept.ts): the body of its last 429, which the next one almost always
// repeats but for the retry seconds.
function quotaExceededBody(result: RateLimitResult, retryAfter: number): string {
  const violated = violatedPolicies(result);
  const policy = result.policy;
  const kept = keptOf(policy?.rule);
  if (policy === undefined || kept === undefined) return bodyText(result, violated, retryAfter);
  let template = kept.body429;
  if (
    template === undefined ||
    template.limit !== result.limit ||
    template.unit !== policy.quotaUnit ||
    !sameTexts(template.violated, violated) ||
    !sameKeys(template.keys, policy.descriptor)
  ) {
    const text = bodyText(result, violated, RETRY_SLOT).replace(`"${RETRY_SLOT_IN_TEXT}"`, RETRY_SLOT_IN_TEXT);
    const parts = text.split(RETRY_SLOT_IN_TEXT);
    // A name that spells the slot itself would make more parts: such a body is built whole each time.
    if (parts.length !== 3) return bodyText(result, violated, retryAfter);
    template = { limit: result.limit, unit: policy.quotaUnit, violated, keys: policy.descriptor.map((e) => e.key), parts };
    kept.body429 = template;
  }
  const retry = String(retryAfter);
  return template.parts[0] + retry + template.parts[1] + retry + template.parts[2];
}

function bodyText(result: RateLimitResult, violated: readonly string[], retryAfter: number | string): string {
  const policy = result.policy;
  const what = policy ? `${policy.name} (${policy.descriptor.map((e) => e.key).join(", ")})` : "rate limit";
  const rate =
    policy?.quotaUnit === "concurrent-requests"
      ? "requests in flight at once"
      : `${policy?.quotaUnit === "tokens" ? "tokens" : "requests"} per ${policy ? policy.windowMs / 1000 : 0} s`;
  const detail = `Rate limit exceeded for ${what}: ${result.limit} ${rate}; retry in ${retryAfter} s.`;
  return JSON.stringify({
    type: QUOTA_EXCEEDED_TYPE,
    title: "Too Many Requests",
    status: 429,
    detail,
    "violated-policies": violated,
    retry_after: retryAfter,
    policy: policy?.name,
    limit: result.limit,
    remaining: 0,
  });
}

function sameTexts(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function sameKeys(keys: readonly string[], entries: readonly { readonly key: string }[]): boolean {
  if (keys.length !== entries.length) return false;
  for (let i = 0; i < keys.length; i++) if (keys[i] !== entries[i].key) return false;
  return true;
}
