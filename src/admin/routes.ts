/**
 * The bearer-protected endpoints under `/__ratelimit/`: Envoy's decision
 * API and the admin API (rules, counters, metrics, the dashboard's traffic and rule health).
 */
import { Hono, type Context } from "hono";
import type { Env } from "../config.ts";
import { problem } from "../http/problem.ts";
import type { Isolate, IsolateOf } from "../admission/isolate-context.ts";
import { requireAdminToken } from "./auth.ts";
import { counters } from "./counters.ts";
import { getHealth } from "./health.ts";
import { handleJson } from "./json.ts";
import { getMetrics } from "./metrics.ts";
import { deleteOverride, listOverrides, putOverride } from "./overrides.ts";
import { deleteRules, getRules, putRules } from "./rules.ts";
import { getSample } from "./sample.ts";
import { getTraffic } from "./traffic.ts";
import { ownSample, postReplay } from "./replay.ts";

type Handler = (c: Context<{ Bindings: Env }>, isolate: Isolate) => Response | Promise<Response>;

/**
 * Routes to mount at `/__ratelimit`.
 *
 * @example
 * app.route("/__ratelimit", adminRoutes(isolateOf));
 */
export function adminRoutes(isolateOf: IsolateOf): Hono<{ Bindings: Env }> {
  const endpoints: Record<string, Partial<Record<"GET" | "POST" | "PUT" | "DELETE", Handler>>> = {
    "/json": { POST: handleJson },
    "/rules": { GET: getRules, PUT: putRules, DELETE: deleteRules },
    "/counters": { GET: (c, isolate) => counters(c, isolate, false), DELETE: (c, isolate) => counters(c, isolate, true) },
    "/metrics": { GET: getMetrics },
    // The dashboard's JSON (docs/dashboard.md); the page itself is a static asset.
    "/traffic": { GET: getTraffic },
    "/health": { GET: getHealth },
    "/overrides": { GET: listOverrides, PUT: putOverride, DELETE: deleteOverride },
    // The rule advisor's traffic sample as NDJSON (docs/advisor.md, "Sample").
    "/sample": { GET: getSample },
    // The what-if panel (docs/advisor.md): the sample read through its own export, with the caller's token.
    "/replay": { POST: (c, isolate) => postReplay(c, isolate, ownSample(admin, c)) },
  };
  const admin = new Hono<{ Bindings: Env }>();
  admin.use("*", requireAdminToken(isolateOf));
  for (const [path, handlers] of Object.entries(endpoints)) {
    for (const [method, handler] of Object.entries(handlers)) admin.on(method, path, (c) => handler(c, isolateOf(c.env)));
    // Any other method: 405 naming the ones the endpoint takes (RFC 9110
    // section 15.5.6), not the 404 of an unknown path; after the token
    // check, so it tells nothing to a caller without one. HEAD is served by
    // the GET handler (Hono answers it with GET's headers).
    const allow = Object.keys(handlers)
      .flatMap((method) => (method === "GET" ? ["GET", "HEAD"] : [method]))
      .join(", ");
    admin.all(path, (c) => problem(405, "Method Not Allowed", `${c.req.method} is not supported on /__ratelimit${path}; use ${allow}.`, {}, { Allow: allow }));
  }
  return admin;
}
