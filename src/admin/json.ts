/**
 * `POST /__ratelimit/json`: Envoy's `/json` endpoint. 200 with the response
 * when OK, 429 when OVER_LIMIT, 400 for a malformed body (as Envoy), with a
 * problem+json naming what is wrong; 413 past MAX_JSON_BODY_BYTES.
 */
import type { Context } from "hono";
import { countersUnreachable, decisionAnswer } from "../admission/index.ts";
import type { Env } from "../config.ts";
import { shouldRateLimit } from "../envoy/service.ts";
import { bodyTextOr413 } from "./body.ts";
import { deferOf } from "../http/defer.ts";
import { problem } from "../http/problem.ts";
import { requestRegion } from "../request/location.ts";
import type { Isolate } from "../admission/isolate-context.ts";
import { parseRulesText } from "../rules/index.ts";

/** Largest decision request body accepted. */
export const MAX_JSON_BODY_BYTES = 1024 * 1024;

/**
 * Handle one decision request.
 *
 * @example
 * admin.post("/json", (c) => handleJson(c, isolateOf(c.env)));
 */
export async function handleJson(c: Context<{ Bindings: Env }>, isolate: Isolate): Promise<Response> {
  const text = await bodyTextOr413(c.req.raw, MAX_JSON_BODY_BYTES, "send fewer descriptors per request");
  if (text instanceof Response) return text;
  const parsed = parseRulesText(text);
  if (!parsed.ok) {
    return problem(400, "Bad Request", `The body is not JSON (line ${parsed.line}, column ${parsed.column}: ${parsed.reason}).`);
  }
  const defer = deferOf(c);
  const rules = await isolate.currentRules(defer);
  const answer = await shouldRateLimit(isolate, rules, parsed.value, defer, requestRegion(c.req.raw));
  switch (answer.kind) {
    case "invalid":
      return problem(400, "Bad Request", `${answer.path}: ${answer.message}`, { path: answer.path });
    case "unavailable":
      return countersUnreachable();
    case "response":
      return decisionAnswer(answer.response, answer.response.overallCode === "OVER_LIMIT", answer.failureOpen === true);
  }
}
