/**
 * The 429 of a RateLimitResult (docs/headers.md): every rate-limit header of
 * the dialect and a problem+json body of draft-11's `quota-exceeded` type.
 * A blocked key's 429s differ only in their seconds, so its headers and
 * body are kept with the compiled limit (src/limiter/kept.ts) and reused.
 * Only refusal.ts answers with it.
 */
import { DEFAULT_HEADER_DIALECT, type HeaderDialect } from "../http/header-dialect.ts";
import { violatedPolicies } from "../limiter/headers/order.ts";
import { type Fixed429, keptOf } from "../limiter/kept.ts";
import { rateLimitHeaders, retryAfterSeconds } from "../limiter/respond.ts";
import type { RateLimitResult } from "../limiter/types.ts";
import { ZERO_LIMIT } from "../rules/facts.ts";

/** draft-ietf-httpapi-ratelimit-headers-11's problem type for a request over its quota (its IANA registration). */
export const QUOTA_EXCEEDED_TYPE = "https://iana.org/assignments/http-problem-types#quota-exceeded";

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
