/**
 * The gateway: health check, the bearer-protected decision and admin API
 * (a Hono app), and for every other path rate limiting, then the origin (or
 * the built-in echo). Nothing under /__ratelimit/ is ever forwarded.
 *
 * Requests outside /__ratelimit/ skip the router: building a Hono context
 * is a visible share of a pass-through's cost (bench/README.md).
 */
import { Hono } from "hono";
import { quotaStatus } from "../admin/quota-status.ts";
import { adminRoutes } from "../admin/routes.ts";
import { ConfigError, type Env } from "../config.ts";
import type { IsolateOf } from "../admission/isolate-context.ts";
import type { RateLimitResult } from "../limiter/types.ts";
import { adminPath } from "../http/admin-path.ts";
import { queuedStatus } from "../queue/status-route.ts";
import { forwardedRequest } from "../request/forward-path.ts";
import { originDecision } from "./origin-decision.ts";
import { admit } from "./admit.ts";
import type { SlotHold } from "./slots.ts";
import { deferFrom, deferOf, type Defer } from "../http/defer.ts";
import { type ForwardOptions, forwardOptions, forwardToOrigin } from "../http/forward.ts";
import { withoutOrigin } from "./no-origin.ts";
import { misconfigured } from "../admission/index.ts";
import { originUnreachable, problem } from "../http/problem.ts";

/** The gateway as a module worker's default export: `fetch`, plus the Hono app behind /__ratelimit/. */
export interface Gateway {
  fetch(request: Request, env: Env, ctx?: ExecutionContext): Promise<Response>;
  readonly app: Hono<{ Bindings: Env }>;
}

/**
 * Build the gateway over the isolate contexts `isolateOf` makes (each holds
 * the live rules, which follow `PUT /__ratelimit/rules` on every isolate).
 *
 * @example
 * export default createApp(isolateContexts(new LiveRules(bundledRules, { bundledJson: rulesJson })));
 */
export function createApp(isolateOf: IsolateOf): Gateway {
  const app = new Hono<{ Bindings: Env }>();

  app.get("/__ratelimit/healthcheck", (c) => c.text("OK"));
  // Before the admin routes: the client that queued a request may read it without the token.
  app.get("/__ratelimit/queued/:id", (c) => queuedStatus(c, isolateOf));
  // No token either: the caller's own quotas, limited per client (docs/admin-api.md, "Status").
  app.get("/__ratelimit/status", (c) => quotaStatus(c, isolateOf));
  app.all("/__ratelimit/status", (c) =>
    problem(405, "Method Not Allowed", `${c.req.method} is not supported on /__ratelimit/status; use GET, HEAD.`, {}, { Allow: "GET, HEAD" }),
  );
  app.route("/__ratelimit", adminRoutes(isolateOf));
  app.all("/__ratelimit/*", () => problem(404, "Not Found", "No such floodgate endpoint."));
  // Reached only by paths the router decodes into something else (see hasEscape).
  app.all("*", (c) => limitThenForward(c.req.raw, c.env, deferOf(c)));
  app.onError(errorResponse);

  async function limitThenForward(sent: Request, env: Env, defer: Defer): Promise<Response> {
    const isolate = isolateOf(env);
    // Awaited only when it is a promise: the hot path takes no extra turn for rules already in hand.
    const pending = isolate.currentRules(defer);
    const rules = pending instanceof Promise ? await pending : pending;
    // What the origin (or the queue) gets: as sent, unless a domain forwards the canonical path.
    const request = forwardedRequest(rules, sent);
    const admission = await admit(request, isolate, rules, defer);
    if (admission.response) return admission.response;
    const wait = admission.untilSlot();
    if (wait !== undefined) await wait;
    const headers = admission.headers();
    let response: Response;
    try {
      response = await originResponse(
        admission.forwarded ?? request,
        isolate.settings.originUrl,
        admission.result,
        // A body whose usage is followed gets a response of its own, whose headers can be set: no copy before it.
        headers.length > 0 && admission.followsBody === undefined,
        forwardOptions(isolate.settings),
        admission.slots,
      );
    } catch (error) {
      admission.abandon();
      throw error;
    }
    return admission.finish(response, headers);
  }

  return {
    app,
    async fetch(request, env, ctx) {
      // TRACE echoes the request (cookies, credentials) back; CONNECT asks for a tunnel. Neither reaches an origin.
      const method = request.method;
      if (method === "TRACE" || method === "CONNECT")
        return problem(405, "Method Not Allowed", `floodgate does not pass ${method} on.`, {}, { Allow: "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS" });
      const admin = adminPath(request.url);
      if (admin === "spelled") return problem(404, "Not Found", "No such floodgate endpoint: spell the path /__ratelimit/… exactly.");
      if (admin === "exact" || hasEscape(request.url)) return app.fetch(request, env, ctx);
      try {
        return await limitThenForward(request, env, deferFrom(ctx));
      } catch (error) {
        return errorResponse(error);
      }
    },
  };
}

// A percent-encoded path may decode into /__ratelimit in the router, so the router decides those too.
function hasEscape(url: string): boolean {
  const percent = url.indexOf("%", url.indexOf("//") + 2);
  const query = url.indexOf("?");
  return percent >= 0 && (query < 0 || percent < query);
}

/**
 * The origin's answer, the echo, or a 502 (which frees `slots` at once). With `mutable`, its headers can
 * be set (a fetch response's cannot, so it is copied: only when headers
 * are to be added, since the copy is a visible share of a request's cost).
 */
async function originResponse(
  request: Request,
  origin: URL | undefined,
  result: RateLimitResult,
  mutable: boolean,
  options: ForwardOptions,
  slots?: SlotHold,
): Promise<Response> {
  // A request forwarded past a limit (not enforced, soft, shadow): the origin is told (docs/rules.md, "Gradual and soft enforcement").
  const decision = originDecision(result);
  if (!origin) return withoutOrigin(request, result, mutable, decision);
  try {
    const upstream = await forwardToOrigin(request, origin, options, decision);
    return mutable ? new Response(upstream.body, upstream) : upstream;
  } catch (error) {
    slots?.release();
    return originUnreachable(error, { origin: "ORIGIN_URL" });
  }
}

function errorResponse(error: unknown): Response {
  if (error instanceof ConfigError) return misconfigured(error);
  console.error(JSON.stringify({ event: "floodgate.unhandled_error", error: String(error), stack: (error as Error).stack }));
  return problem(500, "Internal Server Error", "floodgate hit an unexpected error; it has been logged.");
}
