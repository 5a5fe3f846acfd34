/**
 * The bearer-protected endpoints under `/__ratelimit/`: Envoy's decision
 * API and the admin API (rules, counters, metrics).
 */
import { Hono } from "hono";
import type { Env } from "../env.ts";
import type { LiveRules } from "../live-rules/live-rules.ts";
import { requireAdminToken } from "./auth.ts";
import { counters } from "./counters.ts";
import { problem } from "../http/problem.ts";
import { handleJson } from "./json.ts";
import { getMetrics } from "./metrics.ts";
import { deleteRules, getRules, putRules } from "./rules.ts";

/**
 * Routes to mount at `/__ratelimit`.
 *
 * @example
 * app.route("/__ratelimit", adminRoutes(live));
 */
export function adminRoutes(live: LiveRules): Hono<{ Bindings: Env }> {
  const admin = new Hono<{ Bindings: Env }>();
  admin.use("*", requireAdminToken());
  admin.post("/json", (c) => handleJson(c, live));
  admin.get("/rules", (c) => getRules(c, live));
  admin.put("/rules", (c) => putRules(c, live));
  admin.delete("/rules", (c) => deleteRules(c, live));
  admin.get("/counters", (c) => counters(c, live, false));
  admin.delete("/counters", (c) => counters(c, live, true));
  admin.get("/metrics", getMetrics);
  // A known endpoint asked with a method it does not take: 405 naming the
  // ones it does (RFC 9110 section 15.5.6), not the 404 of an unknown path.
  // After the token check, so it tells nothing to a caller without one.
  for (const [path, methods] of Object.entries(METHODS)) {
    admin.all(path, (c) => problem(405, "Method Not Allowed", `${c.req.method} is not supported on /__ratelimit${path}; use ${methods.join(", ")}.`, {}, { Allow: methods.join(", ") }));
  }
  return admin;
}

// HEAD is served by the GET handlers (Hono answers it with GET's headers).
const METHODS: Readonly<Record<string, readonly string[]>> = {
  "/json": ["POST"],
  "/rules": ["GET", "HEAD", "PUT", "DELETE"],
  "/counters": ["GET", "HEAD", "DELETE"],
  "/metrics": ["GET", "HEAD"],
};
