/**
 * `GET /__ratelimit/sample?domain=D[&since=T]`: the traffic sample of a
 * domain as NDJSON, every metrics shard's rows merged and sorted by `t`
 * (docs/advisor.md, "Sample"). This isolate's buffered rows are sent first;
 * other isolates' wait for their next send (docs/advisor.md, "Sample").
 */
import type { Context } from "hono";
import type { SampleRow } from "../advisor/sample-row.ts";
import { sampleSettings } from "../advisor/sample-settings.ts";
import type { Env } from "../config.ts";
import type { Isolate } from "../admission/isolate-context.ts";
import { deferOf } from "../http/defer.ts";
import { problem } from "../http/problem.ts";
import { metricsShardNames } from "../metrics/shards.ts";

/**
 * Answer with the sample of `domain` from `since` (epoch ms or ISO-8601).
 * 400 for a domain the rules in force do not define, or a `since` that is
 * neither.
 *
 * @example
 * admin.get("/sample", (c) => getSample(c, isolateOf(c.env)));
 */
export async function getSample(c: Context<{ Bindings: Env }>, isolate: Isolate): Promise<Response> {
  const domain = c.req.query("domain");
  const rules = await isolate.currentRules(deferOf(c));
  if (domain === undefined || domain === "") return problem(400, "Bad Request", `domain is required: one of ${names(rules.domains.keys())}`);
  if (!rules.domains.has(domain))
    return problem(400, "Bad Request", `domain ${JSON.stringify(domain)} is not in the rules in force: one of ${names(rules.domains.keys())}`);
  const givenSince = c.req.query("since");
  const since = givenSince === undefined ? 0 : sinceOf(givenSince);
  if (since === undefined) return problem(400, "Bad Request", `since must be epoch milliseconds or an ISO-8601 time, got ${JSON.stringify(givenSince)}`);
  const { maxRows, retentionMs } = sampleSettings(isolate.settings);
  await isolate.metrics.flushNow();
  const now = isolate.now();
  const shards = (await Promise.all(
    metricsShardNames().map((name) => isolate.env.METRICS.getByName(name).sampleRows(domain, since, now, retentionMs)),
  )) as unknown as SampleRow[][];
  // Stable: rows of one t keep their shard's order, the order their isolate decided them in.
  const rows = shards.flat().sort((a, b) => a.t - b.t);
  const kept = rows.length > maxRows ? rows.slice(rows.length - maxRows) : rows;
  const body = kept.map((row) => `${JSON.stringify(row)}\n`).join("");
  return new Response(body, { headers: { "content-type": "application/x-ndjson", "cache-control": "no-store" } });
}

// Epoch ms (digits only) or an ISO-8601 date-time; undefined when neither.
function sinceOf(text: string): number | undefined {
  if (/^\d{1,15}$/.test(text)) return Number(text);
  if (!/^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(text)) return undefined;
  const parsed = Date.parse(text);
  return Number.isNaN(parsed) ? undefined : parsed;
}

function names(domains: Iterable<string>): string {
  const list = [...domains].map((d) => JSON.stringify(d));
  return list.length === 0 ? "(none)" : list.join(", ");
}
