/**
 * `POST /__ratelimit/replay`: the dashboard's what-if panel
 * (docs/advisor.md, "What-if panel"). The body is a rules document; the
 * answer is the replay report of those rules against the traffic sample,
 * beside the rules in force. Invalid rules: 400 with every `{ path,
 * message }`, as `PUT /__ratelimit/rules` and `rules:check` give them; a
 * proposed domain that is not in force (it has no sample): 400 naming it.
 */
import type { Context, Hono } from "hono";
import type { Env } from "../config.ts";
import type { Isolate } from "../admission/isolate-context.ts";
import { httpSample, SampleUnreadableError } from "../advisor/http-sample.ts";
import { inClockOrder, type SampleRow } from "../advisor/sample-row.ts";
import type { SampleSource } from "../advisor/sample-source.ts";
import { whatIf } from "../advisor/what-if.ts";
import { bodyTextOr413 } from "./body.ts";
import { deferOf } from "../http/defer.ts";
import { problem } from "../http/problem.ts";
import { compileRulesText } from "../rules/index.ts";
import { MAX_RULES_BODY_BYTES } from "./rules.ts";

type C = Context<{ Bindings: Env }>;

/**
 * Replay the posted rules against `source`'s sample.
 *
 * @example
 * admin.post("/replay", (c) => postReplay(c, isolateOf(c.env), fixedSample(rows)));
 */
export async function postReplay(c: C, isolate: Isolate, source: SampleSource): Promise<Response> {
  const text = await bodyTextOr413(c.req.raw, MAX_RULES_BODY_BYTES);
  if (text instanceof Response) return text;
  const proposed = compileRulesText(text, { source: "rules" });
  if (!proposed.ok) {
    const n = proposed.errors.length;
    return problem(400, "Bad Request", `The proposed rules are invalid (${n} error${n === 1 ? "" : "s"}).`, { errors: proposed.errors });
  }
  const inForce = await isolate.currentRules(deferOf(c));
  // A domain not in force has no sample to replay: the caller is told which, not handed a 502 from the export.
  const unknown = [...proposed.rules.domains.keys()].filter((domain) => !inForce.domains.has(domain));
  if (unknown.length > 0) return problem(400, "Bad Request", notInForce(unknown, inForce.domains.keys()), { domains: unknown });
  const rows: SampleRow[] = [];
  try {
    for (const domain of proposed.rules.domains.keys()) rows.push(...(await source.rows(domain)));
  } catch (error) {
    if (error instanceof SampleUnreadableError) return problem(502, "Bad Gateway", `${error.message}.`);
    throw error;
  }
  const report = await whatIf(proposed.rules, inForce, inClockOrder(rows), isolate.edge.shardKey);
  return Response.json({ sample_rows: rows.length, ...report }, { headers: { "cache-control": "no-store" } });
}

function notInForce(unknown: readonly string[], inForce: Iterable<string>): string {
  const named = unknown.map((d) => JSON.stringify(d)).join(", ");
  const known = [...inForce].map((d) => JSON.stringify(d)).join(", ") || "none";
  return `The proposed rules name ${unknown.length === 1 ? "a domain" : "domains"} not in force, ${named}: there is no sample of ${unknown.length === 1 ? "its" : "their"} traffic to replay. Domains in force: ${known}.`;
}

/**
 * The Worker's own sample, read through its export (`GET /__ratelimit/sample`)
 * with the caller's token: the replay needs nothing of the store behind it.
 *
 * @example
 * admin.post("/replay", (c) => postReplay(c, isolateOf(c.env), ownSample(admin, c)));
 */
export function ownSample(admin: Hono<{ Bindings: Env }>, c: C): SampleSource {
  const headers = { authorization: c.req.header("authorization") ?? "" };
  return httpSample(async (path) => admin.request(`http://self${path}`, { headers }, c.env, c.executionCtx));
}
