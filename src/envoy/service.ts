/**
 * ShouldRateLimit: Envoy's decision call, shared by `POST /__ratelimit/json`
 * and the FloodgateRpc service binding. Request checked as protojson would,
 * limits from the rules in force, decided by the counter objects, answered
 * as envoyproxy/ratelimit answers, and counted in the metrics.
 */
import { admitDescriptors, COUNTERS_UNREACHABLE_DETAIL, recordUnknownDomain } from "../admission/index.ts";
import type { Isolate } from "../admission/isolate-context.ts";
import type { Region } from "../durable/counters/regions.ts";
import type { Defer } from "../http/defer.ts";
import { EMPTY_LEVEL } from "../rules/descriptors.ts";
import { UNIT_MS } from "../rules/keys.ts";
import { derivedName, limitId } from "../rules/names.ts";
import type { CompiledLimit, CompiledRules, DescriptorMatch, DomainDescriptors } from "../rules/types.ts";
import { parseEnvoyRequest, type EnvoyDescriptor } from "./request.ts";
import { allOk, envoyResponse, type EnvoyResponse } from "./response.ts";

export type ServiceAnswer =
  /** A decision; `failureOpen` when counters were unreachable and FAILURE_MODE=open let everything through. */
  | { readonly kind: "response"; readonly response: EnvoyResponse; readonly failureOpen?: boolean }
  /** The request is malformed (HTTP 400). */
  | { readonly kind: "invalid"; readonly path: string; readonly message: string }
  /** Counters unreachable and FAILURE_MODE=closed (HTTP 503). */
  | { readonly kind: "unavailable"; readonly message: string };

/**
 * Decide an Envoy RateLimitRequest (already parsed from JSON) against `rules`.
 * `region`: where the call arrived (`/json` over HTTP knows it; RPC does
 * not, and counts in region `local`), for limits with `scope: "region"`.
 *
 * @example
 * const answer = await shouldRateLimit(isolate, rules, { domain: "api", descriptors: [{ entries: [{ key: "api_key", value: "k1" }] }] }, defer);
 * if (answer.kind === "response") answer.response.overallCode; // "OK"
 */
export async function shouldRateLimit(isolate: Isolate<unknown>, rules: CompiledRules, body: unknown, defer: Defer, region?: Region): Promise<ServiceAnswer> {
  const parsed = parseEnvoyRequest(body);
  if (!parsed.ok) return { kind: "invalid", path: parsed.path, message: parsed.message };
  const request = parsed.request;
  const { settings } = isolate;
  const domain = rules.domains.get(request.domain);
  if (domain === undefined) {
    // As in Envoy: no limit applies, and each descriptor counts as domain_not_found.
    recordUnknownDomain(isolate, request.domain, request.descriptors.length, defer);
    return { kind: "response", response: allOk(request.descriptors.length) };
  }
  const query: DomainDescriptors = {
    domain,
    descriptors: request.descriptors.map((d) => d.entries),
    costs: request.descriptors.map((d) => d.hitsAddend),
    overrides: request.descriptors.map((d) => (d.limit ? overrideMatch(d, d.limit) : undefined)),
  };
  // No `defer` for the decision: pre-counted limits are decided at the object (docs/precount.md: the decision API asks for an exact answer); `defer` sends the metrics.
  const options = {
    cost: request.hitsAddend,
    timeoutMs: settings.decisionTimeoutMs,
    shadowAll: settings.shadowMode,
    region,
    where: () => ({ domain: request.domain }),
  };
  const result = await admitDescriptors(isolate, [query], options, defer);
  if (result.reason === "failure_closed") return { kind: "unavailable", message: COUNTERS_UNREACHABLE_DETAIL };
  if (result.reason === "failure_open") return { kind: "response", response: allOk(request.descriptors.length), failureOpen: true };
  return { kind: "response", response: envoyResponse(result.descriptors ?? [], settings.shadowMode, isolate.now()) };
}

// Envoy's per-descriptor `limit`: a fixed window of the given size, never shadowed, named by nothing.
function overrideMatch(descriptor: EnvoyDescriptor, override: NonNullable<EnvoyDescriptor["limit"]>): DescriptorMatch {
  const { requestsPerUnit, unit } = override;
  const windowMs = UNIT_MS[unit];
  const limit: CompiledLimit = {
    limit: requestsPerUnit,
    windowMs,
    burst: requestsPerUnit,
    id: limitId("fixed_window", requestsPerUnit, windowMs, requestsPerUnit),
    name: derivedName("override", requestsPerUnit, unit, 1),
    named: false,
    replaces: [],
    unit,
    unitMultiplier: 1,
    requestsPerUnit,
    algorithm: "fixed_window",
    onLimit: "reject",
  };
  const last = descriptor.entries[descriptor.entries.length - 1];
  const node = {
    key: last?.key ?? "",
    limits: [limit],
    unlimited: false,
    shadowMode: false,
    // Envoy names an override's stats after the request's own keys and values.
    detailedMetric: true,
    statKey: "",
    children: EMPTY_LEVEL,
  };
  return { node, limits: node.limits, unlimited: false, shadowMode: false };
}
