/**
 * `GET/PUT/DELETE /__ratelimit/rules`: read the rules in force, upload new
 * ones (validated by the same compiler as `rules:check`; invalid rules
 * change nothing), or go back to the bundled `rules.json`.
 */
import type { Context } from "hono";
import type { Env } from "../config.ts";
import type { Isolate } from "../admission/isolate-context.ts";
import { bodyTextOr413 } from "./body.ts";
import { deferOf } from "../http/defer.ts";
import { problem } from "../http/problem.ts";
import { compileRulesText, type CompileResult } from "../rules/index.ts";
import { MISSING_QUEUE_SECRET, missingQueueMessage, queueCredentialPaths, queueLimitPaths } from "../rules/queue-limits.ts";

/**
 * Largest rules upload accepted (stored in chunks; a 10,000-descriptor file
 * is about 1 MB). As a JS string it is at most twice that (two bytes a
 * character once one character needs them), which crosses RPC to and from
 * the RulesObject well inside its 32 MiB limit, and every isolate holds it
 * compiled (docs/admin-api.md, "Rules").
 */
export const MAX_RULES_BODY_BYTES = 4 * 1024 * 1024;

type C = Context<{ Bindings: Env }>;

/**
 * The rules in force: `{ version, source, updated_at, rules }`.
 *
 * @example
 * admin.get("/rules", (c) => getRules(c, isolateOf(c.env)));
 */
export async function getRules(c: C, isolate: Isolate): Promise<Response> {
  const live = isolate.rules;
  const state = await live.fresh(isolate.env, isolate.settings.decisionTimeoutMs, deferOf(c));
  let rules: unknown = live.bundledJson ?? null;
  if (state.source === "stored") {
    const record = await isolate.env.RULES.getByName(live.objectName).since(-1);
    rules = record?.text !== undefined ? JSON.parse(record.text.replace(/^\uFEFF/, "")) : null;
  }
  return Response.json({ version: state.version, source: state.source, updated_at: state.updatedAt ?? null, rules });
}

/**
 * Validate and store an upload; 400 with every `{ path, message }` when
 * invalid, or when it has `on_limit: "queue"` limits and this Worker has no
 * `QUEUE` binding, or `queue_credentials` limits and no QUEUE_SECRET (each
 * would only ever answer 429).
 *
 * @example
 * admin.put("/rules", (c) => putRules(c, isolateOf(c.env)));
 */
export async function putRules(c: C, isolate: Isolate): Promise<Response> {
  const live = isolate.rules;
  const text = await bodyTextOr413(c.req.raw, MAX_RULES_BODY_BYTES);
  if (text instanceof Response) return text;
  const compiled = compileRulesText(text, { source: "rules" });
  const bound = compiled.ok ? queueBindingCheck(compiled, text, isolate.env) : compiled;
  const checked = bound.ok ? queueSecretCheck(bound, text, isolate.settings.queueSecret) : bound;
  // Validated here for the errors and the local apply; the object validates again before it stores.
  const stored = checked.ok ? await isolate.env.RULES.getByName(live.objectName).put(text) : checked;
  isolate.metrics.recordConfigLoad(stored.ok);
  isolate.metrics.scheduleFlush(deferOf(c));
  if (!checked.ok || !stored.ok) {
    const errors = stored.ok ? [] : stored.errors;
    const n = errors.length;
    return problem(400, "Bad Request", `The rules were rejected (${n} error${n === 1 ? "" : "s"}); the rules in force are unchanged.`, { errors });
  }
  const { version, summary } = stored;
  live.accept({ rules: checked.rules, version, source: "stored", updatedAt: new Date().toISOString() });
  // This location's isolates follow from their next check (docs/admin-api.md, "When an upload applies").
  deferOf(c)(live.publish(isolate.env));
  return Response.json({ version, source: "stored", summary });
}

/** `compiled`, or one error per `on_limit: "queue"` when the Worker has no queue to put requests on. */
function queueBindingCheck(compiled: CompileResult, text: string, env: Env): CompileResult {
  if (env.QUEUE !== undefined) return compiled;
  const paths = queueLimitPaths(JSON.parse(text.replace(/^\uFEFF/, "")));
  if (paths.length === 0) return compiled;
  return { ok: false, errors: paths.map((path) => ({ path, message: missingQueueMessage("this Worker") })) };
}

/** `compiled`, or one error per `queue_credentials: true` when QUEUE_SECRET is unset (each such request would get 429). */
function queueSecretCheck(compiled: CompileResult, text: string, secret: string | undefined): CompileResult {
  if (secret !== undefined) return compiled;
  const paths = queueCredentialPaths(JSON.parse(text.replace(/^\uFEFF/, "")));
  if (paths.length === 0) return compiled;
  return { ok: false, errors: paths.map((path) => ({ path, message: MISSING_QUEUE_SECRET })) };
}

/**
 * Go back to the bundled rules (a new version).
 *
 * @example
 * admin.delete("/rules", (c) => deleteRules(c, isolateOf(c.env)));
 */
export async function deleteRules(c: C, isolate: Isolate): Promise<Response> {
  const live = isolate.rules;
  const version = await isolate.env.RULES.getByName(live.objectName).revert();
  const state = live.bundledState(version, new Date().toISOString());
  live.accept(state);
  deferOf(c)(live.publish(isolate.env));
  return Response.json({ version, source: "bundled" });
}
