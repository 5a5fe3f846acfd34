/**
 * Bearer-token guard of the admin and decision endpoints: 404 when no
 * ADMIN_TOKEN is configured (the endpoints do not exist), 503 when the one
 * configured is refused (shorter than 32 characters), 401 with
 * `WWW-Authenticate: Bearer` for a missing or wrong token, and 429 once a
 * client address has presented too many wrong ones (auth-throttle.ts).
 */
import type { MiddlewareHandler } from "hono";
import type { Env } from "../config.ts";
import type { IsolateOf } from "../admission/isolate-context.ts";
import { bearerToken, tokensEqual } from "../http/bearer.ts";
import { deferOf } from "../http/defer.ts";
import { adminApiOff } from "../admission/index.ts";
import { problem } from "../http/problem.ts";
import { authClient, countFailure, knownThrottled } from "./auth-throttle.ts";

/**
 * Middleware admitting only requests that carry ADMIN_TOKEN.
 *
 * @example
 * admin.use("*", requireAdminToken(isolateOf));
 */
export function requireAdminToken(isolateOf: IsolateOf): MiddlewareHandler<{ Bindings: Env }> {
  return async function adminAuth(c, next) {
    const isolate = isolateOf(c.env);
    const { adminToken: expected, adminTokenRefused } = isolate.settings;
    if (adminTokenRefused !== undefined) return adminApiOff(adminTokenRefused);
    if (expected === undefined) {
      return problem(404, "Not Found", "No such floodgate endpoint (admin endpoints need ADMIN_TOKEN to be configured).");
    }
    const given = bearerToken(c.req.header("authorization") ?? null);
    if (given === undefined) return unauthorized("This endpoint needs an Authorization: Bearer <ADMIN_TOKEN> header.");
    // Before the comparison: past the limit even the right token is answered 429, so guessing on learns nothing.
    const address = authClient(c.req.raw.headers, isolate.settings.trustedProxyHops, isolate.settings.trustedProxyHeader);
    const known = knownThrottled(isolate, address, deferOf(c));
    if (known !== undefined) return known;
    if (!(await tokensEqual(given, expected))) {
      return (await countFailure(isolate, address, deferOf(c))) ?? unauthorized("The bearer token is not the configured ADMIN_TOKEN.");
    }
    await next();
  };
}

function unauthorized(detail: string): Response {
  return problem(401, "Unauthorized", detail, {}, { "WWW-Authenticate": 'Bearer realm="floodgate"' });
}
