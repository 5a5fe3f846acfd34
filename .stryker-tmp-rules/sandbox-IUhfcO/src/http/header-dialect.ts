/**
 * The rate-limit header dialects a response can speak (`RATELIMIT_HEADERS`,
 * or the Hono middleware's `headers` option). See docs/headers.md.
 *
 * - `draft-11`: `RateLimit-Policy` and `RateLimit` as structured-field lists,
 *   one item per policy (draft-ietf-httpapi-ratelimit-headers-11);
 * - `draft-7`: one combined `RateLimit: limit=…, remaining=…, reset=…` and
 *   `RateLimit-Policy: q;w=…` (express-rate-limit's `draft-7`);
 * - `draft-6`: `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset`
 *   and `RateLimit-Policy` (express-rate-limit's `draft-6`);
 * - `none`: no rate-limit fields, only `Retry-After` on a 429.
 *
 * Every dialect but `none` also sends `X-RateLimit-Limit/-Remaining/-Reset`.
 */
// @ts-nocheck


/** Every dialect, the default first. */
export const HEADER_DIALECTS = ["draft-11", "draft-7", "draft-6", "none"] as const;

/** One of {@link HEADER_DIALECTS}. */
export type HeaderDialect = (typeof HEADER_DIALECTS)[number];

/** The dialect spoken when none is chosen. */
export const DEFAULT_HEADER_DIALECT: HeaderDialect = "draft-11";

/**
 * Whether `value` names a dialect (exactly, lower case).
 *
 * @example
 * isHeaderDialect("draft-7"); // true
 * isHeaderDialect("draft-8"); // false
 */
export function isHeaderDialect(value: unknown): value is HeaderDialect {
  return typeof value === "string" && (HEADER_DIALECTS as readonly string[]).includes(value);
}
