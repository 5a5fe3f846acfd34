/**
 * The gateway as a Hono app: health check, the bearer-protected decision and
 * admin API, rate limiting, then the origin (or the built-in echo). Nothing
 * under /__ratelimit/ is ever forwarded.
 */
import { Hono } from "hono";
import { adminRoutes } from "../admin/routes.ts";
import { ConfigError, settingsOf, type Env } from "../env.ts";
import { LiveRules, type LiveRulesOptions } from "../live-rules/live-rules.ts";
import { queuedStatus } from "../queue/status-route.ts";
import type { CompiledRules } from "../rules/types.ts";
import { deferOf } from "./defer.ts";
import { echo, forwardToOrigin } from "./forward.ts";
import { rateLimit, type RateLimitVariables } from "./middleware.ts";
import { problem } from "./problem.ts";

/**
 * Build the gateway app. `rules` is the live rules source (uploads via
 * `PUT /__ratelimit/rules` apply on every isolate), or a function returning
 * the rules to use until something is uploaded.
 *
 * @example
 * export default createApp(new LiveRules(bundledRules, { bundledJson: rulesJson }));
 */
export function createApp(
  rules: LiveRules | (() => CompiledRules), options: LiveRulesOptions = {},
): Hono<{ Bindings: Env; Variables: RateLimitVariables }> {
  const live = rules instanceof LiveRules ? rules : new LiveRules(rules, options);
  const app = new Hono<{ Bindings: Env; Variables: RateLimitVariables }>();

  app.get("/__ratelimit/healthcheck", (c) => c.text("OK"));
  // Before the admin routes: the client that queued a request may read it without the token.
  app.get("/__ratelimit/queued/:id", (c) => queuedStatus(c, live));
  app.route("/__ratelimit", adminRoutes(live));
  app.all("/__ratelimit/*", () => problem(404, "Not Found", "No such floodgate endpoint."));

  app.use("*", rateLimit({ rules: (c) => live.current(c.env, settingsOf(c.env).decisionTimeoutMs, deferOf(c)) }));
  app.all("*", async (c) => {
    const origin = settingsOf(c.env).originUrl;
    if (!origin) return echo(c.req.raw, c.get("rateLimit"));
    try {
      return await forwardToOrigin(c.req.raw, origin);
    } catch (error) {
      return problem(502, "Bad Gateway", `The origin could not be reached: ${String(error)}`);
    }
  });

  app.onError((error) => {
    if (error instanceof ConfigError) return problem(503, "Service Unavailable", `floodgate is misconfigured: ${error.message}`);
    console.error(JSON.stringify({ event: "floodgate.unhandled_error", error: String(error), stack: (error as Error).stack }));
    return problem(500, "Internal Server Error", "floodgate hit an unexpected error; it has been logged.");
  });
  return app;
}
