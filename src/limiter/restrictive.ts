/**
 * "Most restrictive", chosen in one place: which of two decisions speaks
 * for a request (summarize.ts, for the whole request) or for one descriptor
 * (the Envoy response, src/envoy/response.ts).
 */
import type { Decision } from "../algorithms/types.ts";

/**
 * Whether `a` is more restrictive than `b`: a refusal before an admission;
 * among refusals the longest wait; among admissions the least remaining,
 * the latest reset first among equals (so `Retry-After` is never earlier
 * than the first moment every limit allows again, and the headers' first
 * policy is the reported one).
 *
 * @example
 * moreRestrictive({ allowed: false, retryAfterMs: 5000, ... }, { allowed: false, retryAfterMs: 1000, ... }); // true
 */
export function moreRestrictive(a: Decision, b: Decision): boolean {
  if (a.allowed !== b.allowed) return !a.allowed;
  if (!a.allowed) return a.retryAfterMs > b.retryAfterMs;
  return a.remaining < b.remaining || (a.remaining === b.remaining && a.resetAfterMs > b.resetAfterMs);
}

/**
 * The most restrictive of `items` by their decision (the first among equals); undefined when there are none.
 *
 * @example
 * mostRestrictive(outcome.policies, (p) => p.decision);
 */
export function mostRestrictive<T>(items: readonly T[], decisionOf: (item: T) => Decision): T | undefined {
  let best: T | undefined;
  for (const item of items) if (best === undefined || moreRestrictive(decisionOf(item), decisionOf(best))) best = item;
  return best;
}
