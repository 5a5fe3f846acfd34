/**
 * The replay report (docs/advisor.md, "Replay"): per limit of the proposed
 * rules, what it would have done to the sample, beside what the rules in
 * force do to the same sample, with advice.
 */
import type { CompiledLimit, CompiledRules } from "../rules/types.ts";
import { adviseLimit, type KeyArrivals, type LimitAdvice, roundPct } from "./advice.ts";
import { candidateOf } from "./candidate.ts";
import type { ReplayedDescriptor, ReplayRun } from "./replay.ts";
import { limitsOf } from "./rule-limits.ts";

/** How many keys `top_keys` lists. */
export const TOP_KEYS = 5;

/** One limit's figures in one replay. */
export interface LimitFigures {
  /** Sampled requests (descriptors) it decided. */
  readonly requests: number;
  readonly refusals: number;
  readonly refused_pct: number;
  readonly keys_refused: number;
}

/** One limit of the proposed rules. */
export interface LimitReport extends LimitFigures {
  readonly domain: string;
  readonly name: string;
  readonly algorithm: string;
  readonly limit: number;
  readonly window_ms: number;
  readonly shadow: boolean;
  readonly top_keys: readonly { readonly key: string; readonly requests: number; readonly refusals: number }[];
  /** The limit of the same name in the rules in force, on the same sample (null: none). */
  readonly in_force: LimitFigures | null;
  /** Refusals proposed less refusals in force (null: no such limit in force). */
  readonly refusals_change: number | null;
  readonly advice: LimitAdvice;
  /** Its candidate's figures beside it, when the rules give one (src/advisor/candidate.ts). */
  readonly candidate?: LimitFigures;
}

/** The whole report. */
export interface ReplayReport {
  /** Sampled descriptors replayed. */
  readonly replayed: number;
  readonly not_sampled: number;
  readonly undecidable: readonly { readonly reason: string; readonly count: number }[];
  readonly concurrency_skipped: number;
  /** The rules in force replayed against the live decisions: how many match (the replay's honesty, on this sample). */
  readonly reproduced: { readonly matching: number; readonly of: number };
  /** Descriptors the proposed rules refuse that the rules in force allow, and the reverse. */
  readonly newly_refused: number;
  readonly newly_allowed: number;
  readonly limits: readonly LimitReport[];
  /** Limits in force that the proposed rules drop, with their figures. */
  readonly dropped: readonly ({ readonly domain: string; readonly name: string } & LimitFigures)[];
}

interface Tally {
  readonly limit: CompiledLimit;
  readonly domain: string;
  shadow: boolean;
  requests: number;
  refusals: number;
  readonly keys: Map<string, KeyArrivals>;
  /** The candidate's refusals and the keys it refused (see candidate.ts). */
  readonly candidate: { refusals: number; readonly keysRefused: Set<string> };
}

/**
 * The report of `proposed` beside `inForce` (both replays of the same rows).
 *
 * @example
 * const report = replayReport(replay(proposed, rows), replay(inForce, rows));
 * report.limits[0].refused_pct;
 */
export function replayReport(
  proposed: ReplayRun,
  inForce: ReplayRun,
  rules?: { readonly proposed: CompiledRules; readonly inForce: CompiledRules },
): ReplayReport {
  // Limits no sampled request met are listed too, with no traffic.
  const mine = tallies(proposed, rules?.proposed);
  const theirs = tallies(inForce, rules?.inForce);
  const limits = [...mine.values()].map((tally) => {
    const before = theirs.get(tallyId(tally.domain, tally.limit.name));
    const figures = figuresOf(tally);
    const report: LimitReport = {
      domain: tally.domain,
      name: tally.limit.name,
      algorithm: tally.limit.algorithm,
      limit: tally.limit.limit,
      window_ms: tally.limit.windowMs,
      shadow: tally.shadow,
      ...figures,
      top_keys: topKeys(tally.keys),
      in_force: before === undefined ? null : figuresOf(before),
      refusals_change: before === undefined ? null : figures.refusals - before.refusals,
      advice: adviseLimit(tally.keys, tally.limit.limit, tally.limit.windowMs, tally.refusals),
    };
    if (candidateOf(tally.limit) === undefined) return report;
    const { refusals, keysRefused } = tally.candidate;
    const candidate = { requests: tally.requests, refusals, refused_pct: pct(refusals, tally.requests), keys_refused: keysRefused.size };
    return { ...report, candidate };
  });
  // Only domains the proposed rules have: the sample was read for those.
  const domains = new Set(rules?.proposed.domains.keys() ?? [...mine.values()].map((t) => t.domain));
  const dropped = [...theirs.values()]
    .filter((t) => domains.has(t.domain) && !mine.has(tallyId(t.domain, t.limit.name)))
    .map((t) => ({ domain: t.domain, name: t.limit.name, ...figuresOf(t) }));
  const before = new Map(inForce.decided.map((d) => [`${d.row}:${d.index}`, d.allowed]));
  let newlyRefused = 0;
  let newlyAllowed = 0;
  for (const d of proposed.decided) {
    const was = before.get(`${d.row}:${d.index}`);
    if (was === true && !d.allowed) newlyRefused += 1;
    if (was === false && d.allowed) newlyAllowed += 1;
  }
  return {
    replayed: proposed.decided.length,
    not_sampled: proposed.notSampled,
    undecidable: [...proposed.undecidable].map(([reason, count]) => ({ reason, count })),
    concurrency_skipped: proposed.concurrencySkipped,
    reproduced: { matching: inForce.decided.filter((d) => d.allowed === d.live).length, of: inForce.decided.length },
    newly_refused: newlyRefused,
    newly_allowed: newlyAllowed,
    limits,
    dropped,
  };
}

function tallyId(domain: string, name: string): string {
  return `${domain}\u0000${name}`;
}

function tallies(run: ReplayRun, rules: CompiledRules | undefined): Map<string, Tally> {
  const byLimit = new Map<string, Tally>();
  for (const { domain, limit, shadow } of rules === undefined ? [] : limitsOf(rules)) {
    const id = tallyId(domain, limit.name);
    if (!byLimit.has(id)) byLimit.set(id, newTally(limit, domain, shadow));
  }
  for (const d of run.decided) {
    for (const { limit, allowed, candidate } of d.limits) {
      const id = tallyId(d.domain, limit.name);
      let tally = byLimit.get(id);
      if (tally === undefined) byLimit.set(id, (tally = newTally(limit, d.domain, false)));
      tally.shadow ||= d.shadow;
      tally.requests += 1;
      if (!allowed) tally.refusals += 1;
      arrive(tally.keys, d, allowed);
      if (candidate === false) {
        tally.candidate.refusals += 1;
        tally.candidate.keysRefused.add(d.key);
      }
    }
  }
  return byLimit;
}

function newTally(limit: CompiledLimit, domain: string, shadow: boolean): Tally {
  return { limit, domain, shadow, requests: 0, refusals: 0, keys: new Map(), candidate: { refusals: 0, keysRefused: new Set() } };
}

function arrive(keys: Map<string, KeyArrivals>, d: ReplayedDescriptor, allowed: boolean): void {
  let key = keys.get(d.key);
  if (key === undefined) keys.set(d.key, (key = { times: [], costs: [], refusals: 0 }));
  key.times.push(d.t);
  key.costs.push(d.cost);
  if (!allowed) key.refusals += 1;
}

function figuresOf(tally: Tally): LimitFigures {
  let refused = 0;
  for (const key of tally.keys.values()) if (key.refusals > 0) refused += 1;
  return {
    requests: tally.requests,
    refusals: tally.refusals,
    refused_pct: pct(tally.refusals, tally.requests),
    keys_refused: refused,
  };
}

function topKeys(keys: ReadonlyMap<string, KeyArrivals>): LimitReport["top_keys"] {
  return [...keys]
    .map(([key, k]) => ({ key, requests: k.times.length, refusals: k.refusals }))
    .sort((a, b) => b.refusals - a.refusals || b.requests - a.requests || (a.key < b.key ? -1 : 1))
    .slice(0, TOP_KEYS);
}

function pct(part: number, whole: number): number {
  return whole === 0 ? 0 : roundPct(part / whole);
}
