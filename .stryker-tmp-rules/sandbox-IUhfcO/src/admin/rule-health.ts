/**
 * Rule health over the last hour (docs/dashboard.md, "Rule health"): rules
 * that matched nothing, rules limiting more than a share of their traffic,
 * shadow rules that would have limited, and FAILURE_MODE decisions. A pure
 * function of the rules' policies and the traffic view.
 */
// @ts-nocheck

import { policyId, type PolicyRef } from "../metrics/traffic-shape.ts";
import type { PolicyView, TrafficView } from "../metrics/traffic-view.ts";

/** Default share of a rule's hits above which it is "limiting too much". */
export const DEFAULT_LIMITED_SHARE = 0.1;
/** Default least hits in the hour before a rule's limited share is judged (fewer is noise). */
export const DEFAULT_MIN_HITS = 20;

/** A policy with its hour's figures. */
export interface PolicyHealth extends PolicyRef {
  readonly hits: number;
  readonly limited: number;
  readonly shadow_would_limit: number;
  /** `limited / hits` (or `shadow_would_limit / hits` for a shadow rule). */
  readonly share: number;
}

/** The health report. */
export interface RuleHealth {
  readonly limited_share: number;
  readonly min_hits: number;
  readonly from: number;
  readonly to: number;
  /** Limits of the rules in force that counted no hit in the hour. */
  readonly unmatched: readonly PolicyRef[];
  /** Enforcing limits with at least `min_hits` hits that limited more than `limited_share` of them. */
  readonly limiting_too_much: readonly PolicyHealth[];
  /** Shadow limits that would have limited, with how often. */
  readonly shadow_would_limit: readonly PolicyHealth[];
  readonly failure_mode: { readonly open: number; readonly closed: number };
}

/**
 * Judge every policy of the rules in force against the hour's traffic.
 *
 * @example
 * ruleHealth(policiesOf(rules), view, 0.1, 20).unmatched; // [{ domain: "api", descriptor: "legacy", limit: "ten", ... }]
 */
export function ruleHealth(policies: readonly PolicyRef[], view: TrafficView, limitedShare: number, minHits: number): RuleHealth {
  const seen = new Map<string, PolicyView>();
  for (const p of view.policies) seen.set(policyId(p.domain, p.descriptor, p.limit), p);
  const unmatched: PolicyRef[] = [];
  const tooMuch: PolicyHealth[] = [];
  const shadow: PolicyHealth[] = [];
  for (const ref of policies) {
    const traffic = seen.get(policyId(ref.domain, ref.descriptor, ref.limit));
    const t = traffic?.totals;
    const hits = t === undefined ? 0 : t.allowed + t.limited + t.shadow_would_limit;
    if (t === undefined || hits === 0) {
      unmatched.push(ref);
      continue;
    }
    const over = ref.shadow ? t.shadow_would_limit : t.limited;
    const health = { ...ref, hits, limited: t.limited, shadow_would_limit: t.shadow_would_limit, share: over / hits };
    if (ref.shadow && over > 0) shadow.push(health);
    if (!ref.shadow && hits >= minHits && health.share > limitedShare) tooMuch.push(health);
  }
  tooMuch.sort((a, b) => b.share - a.share);
  shadow.sort((a, b) => b.shadow_would_limit - a.shadow_would_limit);
  const f = view.failures.totals;
  return {
    limited_share: limitedShare,
    min_hits: minHits,
    from: view.from,
    to: view.to,
    unmatched,
    limiting_too_much: tooMuch,
    shadow_would_limit: shadow,
    failure_mode: { open: f.failure_open ?? 0, closed: f.failure_closed ?? 0 },
  };
}
