/**
 * `GET /__ratelimit/health?limited_share=0.1&min_hits=20`: rule health over
 * the last hour for the rules in force (docs/dashboard.md, "Rule health").
 */
import type { Context } from "hono";
import type { Env } from "../config.ts";
import type { Isolate } from "../admission/isolate-context.ts";
import { deferOf } from "../http/defer.ts";
import { problem } from "../http/problem.ts";
import { policiesOf } from "./rule-policies.ts";
import { DEFAULT_LIMITED_SHARE, DEFAULT_MIN_HITS, ruleHealth } from "./rule-health.ts";
import { trafficNow } from "./traffic.ts";

/**
 * Answer with the health report; 400 naming a bad `limited_share` or `min_hits`.
 *
 * @example
 * admin.get("/health", (c) => getHealth(c, isolateOf(c.env)));
 */
export async function getHealth(c: Context<{ Bindings: Env }>, isolate: Isolate): Promise<Response> {
  const share = numberParam(c.req.query("limited_share"), DEFAULT_LIMITED_SHARE);
  if (share === undefined || share <= 0 || share > 1) {
    return problem(400, "Bad Request", `"limited_share" must be a number above 0 and at most 1 (a share of a rule's hits), like limited_share=0.1.`);
  }
  const minHits = numberParam(c.req.query("min_hits"), DEFAULT_MIN_HITS);
  if (minHits === undefined || !Number.isSafeInteger(minHits) || minHits < 1) {
    return problem(400, "Bad Request", `"min_hits" must be a whole number of at least 1, like min_hits=20.`);
  }
  const rules = await isolate.currentRules(deferOf(c));
  const view = await trafficNow(isolate);
  return Response.json(ruleHealth(policiesOf(rules), view, share, minHits), { headers: { "cache-control": "no-store" } });
}

function numberParam(text: string | undefined, fallback: number): number | undefined {
  if (text === undefined) return fallback;
  const value = text.trim() === "" ? Number.NaN : Number(text);
  return Number.isFinite(value) ? value : undefined;
}
