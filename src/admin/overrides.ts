/**
 * `PUT/GET/DELETE /__ratelimit/overrides` (docs/admin-api.md, "Overrides"):
 * a limit for one descriptor, or every descriptor a wildcard matches, set
 * at runtime. Stored by the RulesObject, applied on this isolate at once
 * and on every other within the rules' bound.
 */
import type { Context } from "hono";
import type { Env } from "../config.ts";
import type { Isolate } from "../admission/isolate-context.ts";
import { bodyTextOr413 } from "./body.ts";
import { deferOf } from "../http/defer.ts";
import { problem } from "../http/problem.ts";
import { parsePattern } from "../overrides/descriptor.ts";
import { checkOverride } from "../overrides/validate.ts";
import { overrideWarnings } from "../overrides/warnings.ts";
import type { StoredOverride } from "../overrides/types.ts";
import type { RuleError } from "../rules/types.ts";

/** Largest PUT body: one override with its note is far smaller. */
export const MAX_OVERRIDE_BODY_BYTES = 16 * 1024;

type C = Context<{ Bindings: Env }>;

/**
 * Store one override; 400 with every `{ path, message }` when invalid
 * (nothing changes); stored with `warnings` (`{ path, message }`) when a
 * client could choose to match its wildcard.
 *
 * @example
 * admin.put("/overrides", (c) => putOverride(c, isolateOf(c.env)));
 */
export async function putOverride(c: C, isolate: Isolate): Promise<Response> {
  const text = await bodyTextOr413(c.req.raw, MAX_OVERRIDE_BODY_BYTES);
  if (text instanceof Response) return text;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    return rejected(400, [{ path: "$", message: `not valid JSON: ${error instanceof Error ? error.message : String(error)}` }]);
  }
  const now = isolate.now();
  const live = isolate.rules;
  const state = await live.fresh(isolate.env, isolate.settings.decisionTimeoutMs, deferOf(c));
  // Checked here too, so an unknown domain is reported with every other error; the object checks again before it stores.
  const checked = checkOverride(body, now);
  const errors = checked.ok ? [] : [...checked.errors];
  const domain = (body as { domain?: unknown } | null)?.domain;
  if (typeof domain === "string" && domain !== "" && !state.rules.domains.has(domain)) {
    errors.push({ path: "$.domain", message: `no domain "${domain}" in the rules in force (${[...state.rules.domains.keys()].join(", ")})` });
  }
  if (errors.length > 0) return rejected(400, errors);
  const stored = await isolate.env.RULES.getByName(live.objectName).putOverride(body, now);
  if (!stored.ok) return rejected(stored.status, stored.errors);
  await live.fresh(isolate.env, isolate.settings.decisionTimeoutMs, deferOf(c));
  // Stored, but said: a wildcard a client can type its way into (overrides/warnings.ts).
  const compiled = state.rules.domains.get(stored.override.domain);
  const pattern = parsePattern(stored.override.descriptor);
  const warnings = compiled !== undefined && pattern.ok ? overrideWarnings(compiled, pattern.pattern) : [];
  return Response.json({ version: stored.version, override: view(stored.override, now), ...(warnings.length > 0 ? { warnings } : {}) });
}

/**
 * The overrides of `?domain=D`.
 *
 * @example
 * admin.get("/overrides", (c) => listOverrides(c, isolateOf(c.env)));
 */
export async function listOverrides(c: C, isolate: Isolate): Promise<Response> {
  const domain = rawParam(new URL(c.req.url).search, "domain");
  if (domain === undefined || domain === "") return problem(400, "Bad Request", 'give exactly one non-empty "domain" query parameter');
  const rows = await isolate.env.RULES.getByName(isolate.rules.objectName).listOverrides(domain);
  const now = isolate.now();
  return Response.json({ domain, overrides: rows.map((row) => view(row, now)) });
}

/**
 * Remove the override of `?domain=D&descriptor=k=v,...` (the descriptor as it was stored, `*` included).
 *
 * @example
 * admin.delete("/overrides", (c) => deleteOverride(c, isolateOf(c.env)));
 */
export async function deleteOverride(c: C, isolate: Isolate): Promise<Response> {
  const search = new URL(c.req.url).search;
  const domain = rawParam(search, "domain");
  // Raw: the descriptor is percent-decoded part by part, after splitting on "," and "=".
  const descriptor = rawParam(search, "descriptor", false);
  if (domain === undefined || domain === "") return problem(400, "Bad Request", 'give exactly one non-empty "domain" query parameter');
  if (descriptor === undefined)
    return problem(400, "Bad Request", 'give exactly one "descriptor" query parameter, like descriptor=user=acme or descriptor=user=acme-*');
  const live = isolate.rules;
  const removed = await isolate.env.RULES.getByName(live.objectName).deleteOverride(domain, descriptor);
  if (!removed.ok) return problem(removed.status, removed.status === 404 ? "Not Found" : "Bad Request", removed.message);
  await live.fresh(isolate.env, isolate.settings.decisionTimeoutMs, deferOf(c));
  return Response.json({ version: removed.version, removed: true });
}

function rejected(status: 400 | 409, errors: readonly RuleError[]): Response {
  const n = errors.length;
  const title = status === 400 ? "Bad Request" : "Conflict";
  return problem(status, title, `The override was rejected (${n} error${n === 1 ? "" : "s"}); the overrides in force are unchanged.`, { errors });
}

function view(row: StoredOverride, now: number) {
  const expired = row.expires_at !== null && Date.parse(row.expires_at) <= now;
  return { ...row, rate_limit: JSON.parse(row.rate_limit), expired };
}

// One query parameter given exactly once, decoded unless `decode` is false; undefined otherwise.
function rawParam(search: string, name: string, decode = true): string | undefined {
  const values = search
    .replace(/^\?/, "")
    .split("&")
    .filter((part) => part === name || part.startsWith(`${name}=`))
    .map((part) => part.slice(name.length + 1));
  if (values.length !== 1) return undefined;
  if (!decode) return values[0];
  try {
    return decodeURIComponent(values[0]);
  } catch {
    return undefined;
  }
}
