/**
 * The dashboard's candidate limits (docs/dashboard.md, "Candidate limits"):
 * each `candidate` of the rules in force beside its live limit, with the
 * hour's refusals of both from the traffic view, so a new limit can be
 * judged on real traffic before it is made live.
 */
import type { TrafficView } from "../metrics/traffic-view.ts";
import type { CompiledRules, DescriptorLevel } from "../rules/types.ts";

/** One candidate beside its live limit, over the traffic view's hour. */
export interface CandidateRow {
  readonly domain: string;
  readonly descriptor: string;
  /** The live limit's name and window. */
  readonly limit: string;
  readonly window_seconds: number;
  /** Hits the live limit refused, or would have (shadow, not-enforced). */
  readonly live_limited: number;
  /** Hits the live limit counted. */
  readonly live_hits: number;
  readonly candidate: string;
  readonly candidate_window_seconds: number;
  /** Hits the candidate would have refused. */
  readonly candidate_would_limit: number;
}

/**
 * Every candidate of `rules`, in file order, with its and its live limit's hour from `view`.
 *
 * @example
 * candidateRows(rules, view); // [{ limit: "per-user", live_limited: 0, candidate: "per-user/candidate", candidate_would_limit: 12, ... }]
 */
export function candidateRows(rules: CompiledRules, view: TrafficView): CandidateRow[] {
  const rows: CandidateRow[] = [];
  const totals = new Map(view.policies.map((p) => [JSON.stringify([p.domain, p.descriptor, p.limit]), p.totals]));
  const totalsOf = (domain: string, descriptor: string, limit: string) => totals.get(JSON.stringify([domain, descriptor, limit]));
  for (const domain of rules.domains.values()) {
    walk(domain.root, (descriptor, live, candidate) => {
      const liveTotals = totalsOf(domain.domain, descriptor, live.name);
      const candidateTotals = totalsOf(domain.domain, descriptor, candidate.name);
      rows.push({
        domain: domain.domain,
        descriptor,
        limit: live.name,
        window_seconds: live.windowMs / 1000,
        live_limited: (liveTotals?.limited ?? 0) + (liveTotals?.shadow_would_limit ?? 0),
        live_hits: liveTotals === undefined ? 0 : liveTotals.allowed + liveTotals.limited + liveTotals.shadow_would_limit,
        candidate: candidate.name,
        candidate_window_seconds: candidate.windowMs / 1000,
        candidate_would_limit: (candidateTotals?.limited ?? 0) + (candidateTotals?.shadow_would_limit ?? 0),
      });
    });
  }
  return rows;
}

type Visit = (descriptor: string, live: { name: string; windowMs: number }, candidate: { name: string; windowMs: number }) => void;

function walk(level: DescriptorLevel, visit: Visit): void {
  const nodes = [...level.exact.values(), ...[...level.wildcards.values()].flat().map((w) => w.node), ...level.keyOnly.values()];
  for (const node of nodes) {
    for (const limit of node.limits) if (limit.candidate !== undefined) visit(node.statKey, limit, limit.candidate);
    walk(node.children, visit);
  }
}
