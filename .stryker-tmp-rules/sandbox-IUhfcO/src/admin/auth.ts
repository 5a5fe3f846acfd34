/**
 * Bearer-token guard of the admin and decision endpoints: 404 when no
 * ADMIN_TOKEN is configured (the endpoints do not exist), 401 with
 * `WWW-Authenticate: Bearer` for a missing or wrong token.
 */
// @ts-nocheck

import type { MiddlewareHandler } from "hono";
import type { Env } from "../config.ts";
import type { IsolateOf } from "../context/isolate.ts";
import { bearerToken, tokensEqual } from "../http/bearer.ts";
import { problem } from "../http/problem.ts";

/**
 * Middleware admitting only requests that carry ADMIN_TOKEN.
 *
 * @example
 * admin.use("*", requireAdminToken(isolateOf));
 */
export function requireAdminToken(isolateOf: IsolateOf): MiddlewareHandler<{ Bindings: Env }> {
  return async function adminAuth(c, next) {
    const expected = isolateOf(c.env).settings.adminToken;
    if (expected === undefined) {
      return problem(404, "Not Found", "No such floodgate endpoint (admin endpoints need ADMIN_TOKEN to be configured).");
    }
    const given = bearerToken(c.req.header("authorization") ?? null);
    if (given === undefined || !(await tokensEqual(given, expected))) {
      const detail =
        given === undefined ? "This endpoint needs an Authorization: Bearer <ADMIN_TOKEN> header." : "The bearer token is not the configured ADMIN_TOKEN.";
      return problem(401, "Unauthorized", detail, {}, { "WWW-Authenticate": 'Bearer realm="floodgate"' });
    }
    await next();
  };
}
