/**
 * The gateway as a Hono app: health check, rate limiting, then the origin
 * (or the built-in echo). Nothing under /__ratelimit/ is ever forwarded.
 */
import { Hono } from "hono";
import { ConfigError, settingsOf, type Env } from "../env.ts";
import type { CompiledRules } from "../rules/types.ts";
import { echo, forwardToOrigin } from "./forward.ts";
import { rateLimit, type RateLimitVariables } from "./middleware.ts";
import { problem } from "./problem.ts";

/**
 * Build the gateway app for a source of compiled rules.
 *
 * @example
 * export default createApp(bundledRules);
 */
export function createApp(rules: () => CompiledRules): Hono<{ Bindings: Env; Variables: RateLimitVariables }> {
  const app = new Hono<{ Bindings: Env; Variables: RateLimitVariables }>();

  app.get("/__ratelimit/healthcheck", (c) => c.text("OK"));
  app.all("/__ratelimit/*", () => problem(404, "Not Found", "No such floodgate endpoint (admin endpoints need ADMIN_TOKEN to be configured)."));

  app.use("*", rateLimit({ rules }));
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
