/**
 * The bearer-protected endpoints under `/__ratelimit/`: Envoy's decision
 * API and the admin API (rules, counters, metrics).
 */
import { Hono } from "hono";
import type { Env } from "../env.ts";
import type { LiveRules } from "../live-rules/live-rules.ts";
import { requireAdminToken } from "./auth.ts";
import { counters } from "./counters.ts";
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
  return admin;
}
