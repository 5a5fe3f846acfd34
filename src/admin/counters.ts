/**
 * `GET /__ratelimit/counters` reads a counter without consuming from it;
 * `DELETE` resets it. The limits come from the rules in force through the
 * same lookup a decision uses, and the owning object answers. A limit with
 * `scope: "region"` has a counter per region: `region=` names which
 * (docs/placement.md).
 */
import type { Context } from "hono";
import type { Env } from "../config.ts";
import type { Isolate } from "../admission/isolate-context.ts";
import { counterKey, objectName } from "../durable/counters/placement.ts";
import type { CounterVerdict } from "../stored/wire-calls.ts";
import { counterStub, inRegion, isRegion, REGIONS } from "../durable/counters/regions.ts";
import { deferOf } from "../http/defer.ts";
import { problem } from "../http/problem.ts";
import { toLimitCall } from "../limiter/decide.ts";
import { overrideMatch } from "../overrides/lookup.ts";
import { boundedEntries, matchDescriptor } from "../rules/index.ts";
import type { CompiledLimit, DescriptorEntry } from "../rules/types.ts";
import { parseCounterQuery } from "./descriptor-param.ts";

/**
 * Read (`reset` false) or reset and then read (`reset` true) one counter.
 *
 * @example
 * admin.get("/counters", (c) => counters(c, isolateOf(c.env), false));
 */
export async function counters(c: Context<{ Bindings: Env }>, isolate: Isolate, reset: boolean): Promise<Response> {
  const query = parseCounterQuery(new URL(c.req.url).search);
  if (!query.ok) return problem(400, "Bad Request", query.message);
  const rules = await isolate.currentRules(deferOf(c));
  const domain = rules.domains.get(query.domain);
  if (domain === undefined) return problem(404, "Not Found", `No domain "${query.domain}" in the rules in force.`);
  // A long value names its counter by its digest, as in a decision; the keyed form finds the same counter.
  const entries = await boundedEntries(query.entries);
  // An override in force replaces the rules' limits, as in a decision (src/limiter/plan.ts).
  const match = overrideMatch(domain, entries, isolate.now()) ?? matchDescriptor(domain, entries);
  if (match === undefined || match.limits.length === 0) {
    const by = match?.override !== undefined ? ` by the override ${match.override.descriptor}` : "";
    const why = match === undefined ? "matches no rule" : match.unlimited ? `is unlimited${by}` : "has no limit (whitelisted)";
    return problem(404, "Not Found", `The descriptor ${label(entries)} ${why} in domain "${query.domain}".`);
  }
  const regional = match.limits[0].scope === "region";
  if (regional !== (query.region !== undefined)) {
    const why = regional ? `is counted per region (scope "region"): add region=<one of ${REGIONS.join(", ")}>` : 'is counted globally: drop "region"';
    return problem(400, "Bad Request", `The descriptor ${label(query.entries)} ${why}.`);
  }
  if (query.region !== undefined && !isRegion(query.region)) {
    return problem(400, "Bad Request", `Unknown region ${JSON.stringify(query.region)}: expected one of ${REGIONS.join(", ")}.`);
  }
  // A share_threshold match counts in the pattern's counter (docs/rules.md).
  const globalKey = counterKey(domain.domain, match.counterEntries ?? entries);
  const globalName = objectName(domain.domain, domain.placement, domain.shards, globalKey, isolate.edge.shardKey);
  // The same regional copy a decision in that region uses (src/limiter/plan.ts).
  const key = query.region === undefined ? globalKey : inRegion(globalKey, query.region);
  const stub = counterStub(isolate.counters, query.region === undefined ? globalName : inRegion(globalName, query.region));
  if (reset) {
    await stub.reset(key);
    isolate.edge.blocks.forget(key);
  }
  const verdict = await stub.peek({ key, limits: match.limits.map(toLimitCall), cost: 0 });
  return Response.json({
    domain: domain.domain,
    descriptor: entries,
    ...(query.region !== undefined ? { region: query.region } : {}),
    ...(reset ? { reset: true } : {}),
    ...(match.override !== undefined ? { override: match.override } : {}),
    limits: match.limits.map((limit, i) => describe(limit, verdict, i)),
  });
}

function describe(limit: CompiledLimit, verdict: CounterVerdict, i: number) {
  const d = verdict.decisions[i];
  // Slots have no window (docs/concurrency.md): how many are taken says it all.
  if (limit.concurrency !== undefined)
    return { name: limit.name, concurrency: limit.concurrency, in_flight: limit.concurrency - d.remaining, remaining: d.remaining };
  return {
    name: limit.name,
    algorithm: limit.algorithm,
    unit: limit.unit,
    unit_multiplier: limit.unitMultiplier,
    requests_per_unit: limit.requestsPerUnit,
    window_seconds: limit.windowMs / 1000,
    remaining: d.remaining,
    reset_after_ms: d.resetAfterMs,
    reset_after_seconds: Math.ceil(d.resetAfterMs / 1000),
  };
}

function label(entries: readonly DescriptorEntry[]): string {
  return entries.map((e) => `${e.key}=${e.value}`).join(",");
}
