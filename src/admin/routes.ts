/**
 * The bearer-protected endpoints under `/__ratelimit/`: Envoy's decision
 * API and the admin API (rules, counters, metrics).
 */
import { Hono, type Context } from "hono";
import type { Env } from "../config.ts";
import { problem } from "../http/problem.ts";
import type { LiveRules } from "../rules/live.ts";
import { requireAdminToken } from "./auth.ts";
import { counters } from "./counters.ts";
import { handleJson } from "./json.ts";
import { getMetrics } from "./metrics.ts";
import { deleteRules, getRules, putRules } from "./rules.ts";

type Handler = (c: Context<{ Bindings: Env }>) => Response | Promise<Response>;

/**
 * Routes to mount at `/__ratelimit`.
 *
 * @example
 * app.route("/__ratelimit", adminRoutes(live));
 */
export function adminRoutes(live: LiveRules): Hono<{ Bindings: Env }> {
  const endpoints: Record<string, Partial<Record<"GET" | "POST" | "PUT" | "DELETE", Handler>>> = {
    "/json": { POST: (c) => handleJson(c, live) },
    "/rules": { GET: (c) => getRules(c, live), PUT: (c) => putRules(c, live), DELETE: (c) => deleteRules(c, live) },
    "/counters": { GET: (c) => counters(c, live, false), DELETE: (c) => counters(c, live, true) },
    "/metrics": { GET: getMetrics },
  };
  const admin = new Hono<{ Bindings: Env }>();
  admin.use("*", requireAdminToken());
  for (const [path, handlers] of Object.entries(endpoints)) {
    for (const [method, handler] of Object.entries(handlers)) admin.on(method, path, handler);
    // Any other method: 405 naming the ones the endpoint takes (RFC 9110
    // section 15.5.6), not the 404 of an unknown path; after the token
    // check, so it tells nothing to a caller without one. HEAD is served by
    // the GET handler (Hono answers it with GET's headers).
    const allow = Object.keys(handlers).flatMap((method) => (method === "GET" ? ["GET", "HEAD"] : [method])).join(", ");
    admin.all(path, (c) => problem(405, "Method Not Allowed", `${c.req.method} is not supported on /__ratelimit${path}; use ${allow}.`, {}, { Allow: allow }));
  }
  return admin;
}
