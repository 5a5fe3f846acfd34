/**
 * Bearer-token guard of the admin and decision endpoints: 404 when no
 * ADMIN_TOKEN is configured (the endpoints do not exist), 401 with
 * `WWW-Authenticate: Bearer` for a missing or wrong token.
 */
import type { MiddlewareHandler } from "hono";
import { settingsOf, type Env } from "../env.ts";
import { problem } from "../http/problem.ts";

const encoder = new TextEncoder();

async function sha256(text: string): Promise<ArrayBuffer> {
  return crypto.subtle.digest("SHA-256", encoder.encode(text));
}

/**
 * Compare two secrets in constant time. Both are hashed first, so the
 * comparison always runs over 32 bytes and leaks neither content nor length.
 *
 * @example
 * await tokensEqual("s3cret", env.ADMIN_TOKEN); // true or false, in the same time
 */
export async function tokensEqual(given: string, expected: string): Promise<boolean> {
  const [a, b] = await Promise.all([sha256(given), sha256(expected)]);
  return crypto.subtle.timingSafeEqual(a, b);
}

/**
 * The token of an `Authorization: Bearer <token>` header, or undefined.
 *
 * @example
 * bearerToken("Bearer abc"); // "abc"
 * bearerToken("Basic abc");  // undefined
 */
export function bearerToken(header: string | null): string | undefined {
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? "");
  return match?.[1];
}

/**
 * Middleware admitting only requests that carry ADMIN_TOKEN.
 *
 * @example
 * admin.use("*", requireAdminToken());
 */
export function requireAdminToken(): MiddlewareHandler<{ Bindings: Env }> {
  return async function adminAuth(c, next) {
    const expected = settingsOf(c.env).adminToken;
    if (expected === undefined) {
      return problem(404, "Not Found", "No such floodgate endpoint (admin endpoints need ADMIN_TOKEN to be configured).");
    }
    const given = bearerToken(c.req.header("authorization") ?? null);
    if (given === undefined || !(await tokensEqual(given, expected))) {
      const detail = given === undefined
        ? "This endpoint needs an Authorization: Bearer <ADMIN_TOKEN> header."
        : "The bearer token is not the configured ADMIN_TOKEN.";
      return problem(401, "Unauthorized", detail, {}, { "WWW-Authenticate": 'Bearer realm="floodgate"' });
    }
    await next();
  };
}
