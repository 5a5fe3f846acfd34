/**
 * Which policies a response lists, and in what order: every enforcing
 * (non-shadow) one that applied, most restrictive first.
 */
// @ts-nocheck

import type { PolicyOutcome, RateLimitResult } from "../types.ts";

/**
 * The order `summarize` picks the reported policy by, so the first listed
 * is always `result.policy`: rejecting policies first, the longest wait
 * first (ties keep request order); then the least remaining, the latest
 * reset first among equals.
 */
function moreRestrictiveFirst(a: PolicyOutcome, b: PolicyOutcome): number {
  const x = a.decision;
  const y = b.decision;
  if (x.allowed !== y.allowed) return x.allowed ? 1 : -1;
  if (!x.allowed) return x.retryAfterMs === y.retryAfterMs ? 0 : x.retryAfterMs > y.retryAfterMs ? -1 : 1;
  if (x.remaining !== y.remaining) return x.remaining - y.remaining;
  return y.resetAfterMs - x.resetAfterMs;
}

/**
 * The enforcing policies of `result`, most restrictive first; shadow ones
 * are counted but never listed. The usual single policy costs no copy.
 *
 * @example
 * listedPolicies(result)[0] === result.policy; // true whenever a limit applied
 */
export function listedPolicies(result: RateLimitResult): readonly PolicyOutcome[] {
  const all = result.policies;
  if (all.length === 1 && !all[0].shadow) return all;
  const listed = all.filter((p) => !p.shadow).sort(moreRestrictiveFirst);
  // A quota_mode limit over its quota may sort ahead of the policy that decided (docs/rules.md, "quota_mode"): the decider leads.
  const at = result.policy === undefined ? -1 : listed.indexOf(result.policy);
  if (at > 0) listed.unshift(...listed.splice(at, 1));
  return listed;
}

/**
 * Names of the enforcing policies that refused the request, most
 * restrictive first, each once: the 429's `violated-policies`.
 *
 * @example
 * violatedPolicies(result); // ["per-ip-1s", "per-ip-1m"]
 */
export function violatedPolicies(result: RateLimitResult): string[] {
  const names: string[] = [];
  for (const p of listedPolicies(result)) if (!p.decision.allowed && !names.includes(p.name)) names.push(p.name);
  return names;
}
