/**
 * The peer: `hono-rate-limiter` with `@hono-rate-limiter/cloudflare`'s
 * `DurableObjectStore`, wired exactly as that package's README shows (the
 * middleware and store built per request, the `DurableObjectRateLimiter`
 * class exported), keyed by `x-api-key` and given, path by path, the same
 * limit floodgate enforces (`scenarios.ts`). It keeps one object per key and
 * writes storage on every request, counting rejected requests too: that is
 * how the package works, not a handicap added here. Allowed requests are
 * forwarded to the bench origin, as floodgate's are.
 */
// @ts-nocheck

import { DurableObjectRateLimiter, DurableObjectStore } from "@hono-rate-limiter/cloudflare";
import { Hono, type Context, type Next } from "hono";
import { rateLimiter } from "hono-rate-limiter";
import { scenarioForPath } from "../scenarios.ts";

type Bindings = {
  CACHE: DurableObjectNamespace<DurableObjectRateLimiter>;
  /** The bench origin every target forwards allowed requests to (set by the bench's workerd config). */
  ORIGIN_URL: string;
};

const app = new Hono<{ Bindings: Bindings }>();

app.use((c: Context<{ Bindings: Bindings }>, next: Next) => {
  const scenario = scenarioForPath(c.req.path);
  if (!scenario) return Promise.resolve(c.text("no such bench path", 404));
  const key = c.req.header("x-api-key") ?? "";
  // The Zipf mix has two limits by key name, as floodgate's rules do.
  const limit = scenario.overLimit && key.startsWith("over-") ? scenario.overLimit : scenario.limit;
  return rateLimiter<{ Bindings: Bindings }>({
    windowMs: limit.windowMs,
    limit: limit.limit,
    standardHeaders: "draft-6",
    // The path is part of the key so scenarios never share a counter, as in floodgate.
    keyGenerator: () => `${scenario.id}:${key}`,
    store: new DurableObjectStore({ namespace: c.env.CACHE }),
  })(c, next);
});

// Allowed requests go on to the same origin floodgate and the bare worker forward to.
app.all("*", (c) => fetch(c.env.ORIGIN_URL + c.req.path, c.req.raw));

export { DurableObjectRateLimiter };

export default app;
