/**
 * The replay (docs/advisor.md, "Replay"): sampled requests run through
 * compiled rules and the real algorithms, on the clock and cost each row
 * recorded. Pure: rules and rows in, decisions out; it runs in Node (the
 * `rules:replay` command) and in the Worker (`POST /__ratelimit/replay`).
 *
 * It decides as the counter objects do (src/durable/counters/counter-object.ts):
 * a descriptor's limits are one call, allowed only when every window
 * allows, and then every window is charged; a refused call charges
 * nothing. State is kept per counter key and limit id, as the live
 * counters are, so two limits of equal parameters on one key share a
 * counter there as here. Only descriptors marked `sampled` are replayed:
 * the others are in the sample only beside a sampled one, and a counter
 * that saw part of its requests would decide wrongly.
 */
import { getAlgorithm } from "../algorithms/index.ts";
import { counterKey, STORAGE_ID_SEPARATOR } from "../stored/counter-ids.ts";
import { applyReplaces } from "../rules/match/match.ts";
import type { CompiledLimit, CompiledRules, DescriptorMatch } from "../rules/types.ts";
import type { ShardKey } from "../stored/shard-hash.ts";
import { type DigestDictionary, digestDictionary, matchSampled } from "./digest-match.ts";
import { CANDIDATE_SUFFIX, candidateOf } from "./candidate.ts";
import { SAMPLE_ROW_VERSION, type SampleRow } from "./sample-row.ts";

const NO_DIGESTS: DigestDictionary = new Map();

/** Compiled rules made ready for digested samples. */
export interface ReplayRules {
  readonly rules: CompiledRules;
  readonly dictionaries: ReadonlyMap<string, DigestDictionary>;
}

/** One limit's decision on one replayed descriptor. */
export interface LimitDecision {
  readonly limit: CompiledLimit;
  readonly allowed: boolean;
  /** The decision of the limit's candidate, when it has one (never enforced). */
  readonly candidate?: boolean;
}

/** One sampled descriptor as replayed. */
export interface ReplayedDescriptor {
  /** Index of its row in the sample. */
  readonly row: number;
  /** Index of the descriptor in its row. */
  readonly index: number;
  readonly domain: string;
  /** The key as the sample names it, `k=v,k2=v2` (digests as sampled). */
  readonly key: string;
  readonly t: number;
  readonly cost: number;
  /** Its live decision, from the row. */
  readonly live: boolean;
  /** The replay's decision: every limit allowed. */
  readonly allowed: boolean;
  readonly limits: readonly LimitDecision[];
  /** Its node is in shadow mode: a refusal here is a would-be one. */
  readonly shadow: boolean;
}

/** What a replay decided, and what it could not. */
export interface ReplayRun {
  readonly decided: ReplayedDescriptor[];
  /** Descriptors in the sample only beside a sampled one: not replayed. */
  readonly notSampled: number;
  /** Descriptors the rules cannot be decided on (a wildcard or range against a digest), by reason. */
  readonly undecidable: Map<string, number>;
  /** Concurrency limits met (they hold a slot for a response's length, which the sample does not record): left out. */
  readonly concurrencySkipped: number;
}

/**
 * Get compiled rules ready for a replay: digests of their exact values
 * under the deployment's `shardKey`, the key the sample's digests were made
 * with (docs/advisor.md, "Values are digests"). Without it, a digested
 * entry matches only key-only nodes.
 *
 * @example
 * const ready = await replayRules(compiled.rules, edge.shardKey);
 */
export async function replayRules(rules: CompiledRules, shardKey: ShardKey | undefined): Promise<ReplayRules> {
  const dictionaries = new Map<string, DigestDictionary>();
  for (const [name, domain] of rules.domains) dictionaries.set(name, await digestDictionary(domain, shardKey));
  return { rules, dictionaries };
}

/**
 * Replay `rows` (in clock order, see `parseSample`) through `ready`.
 *
 * @example
 * const run = replay(await replayRules(rules, shardKey), sample.rows);
 * run.decided.filter((d) => !d.allowed).length; // would-be refusals
 */
export function replay(ready: ReplayRules, rows: readonly SampleRow[]): ReplayRun {
  const states = new Map<string, unknown>();
  const run: { -readonly [F in keyof ReplayRun]: ReplayRun[F] } = { decided: [], notSampled: 0, undecidable: new Map(), concurrencySkipped: 0 };
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r];
    const domain = ready.rules.domains.get(row.domain);
    // A row of format 1 holds unkeyed digests (docs/stored-formats.md): no rule value is digested to them.
    const dictionary = (row.v === SAMPLE_ROW_VERSION ? ready.dictionaries.get(row.domain) : undefined) ?? NO_DIGESTS;
    const matched = row.descriptors.map((d) => (domain === undefined ? undefined : matchSampled(domain, dictionary, d.entries)));
    // `replaces` looks at every descriptor of the request, sampled or not.
    const kept = applyReplaces(matched.map((m) => (m?.kind === "matched" ? m.match : undefined)));
    for (let i = 0; i < row.descriptors.length; i++) {
      const descriptor = row.descriptors[i];
      if (!descriptor.sampled) {
        run.notSampled += 1;
        continue;
      }
      const m = matched[i];
      if (m?.kind === "undecidable") {
        run.undecidable.set(m.reason, (run.undecidable.get(m.reason) ?? 0) + 1);
        continue;
      }
      const limits = kept[i].filter((limit) => limit.concurrency === undefined);
      run.concurrencySkipped += kept[i].length - limits.length;
      const counter = domain === undefined || m === undefined ? "" : counterKey(domain.domain, m.match?.counterEntries ?? m.entries);
      const decisions = decideCall(states, counter, limits, row.t, row.cost);
      run.decided.push({
        row: r,
        index: i,
        domain: row.domain,
        key: descriptor.entries.map((e) => `${e.key}=${e.value}`).join(","),
        t: row.t,
        cost: row.cost,
        live: descriptor.allowed,
        allowed: decisions.every((d) => d.allowed),
        limits: decisions,
        shadow: shadowOf(m?.kind === "matched" ? m.match : undefined),
      });
    }
  }
  return run;
}

// All or nothing, as the counter object's plain call: charged only when every window allows.
function decideCall(states: Map<string, unknown>, key: string, limits: readonly CompiledLimit[], now: number, cost: number): LimitDecision[] {
  const steps = limits.map((limit) => {
    const id = key + STORAGE_ID_SEPARATOR + limit.id;
    return { id, step: getAlgorithm(limit.algorithm).decide(states.get(id), limit, now, cost) };
  });
  const allowed = steps.every(({ step }) => step.decision.allowed);
  if (allowed && cost > 0) for (const { id, step } of steps) states.set(id, step.state);
  return steps.map(({ id, step }, i) => {
    const decision: LimitDecision = { limit: limits[i], allowed: step.decision.allowed };
    const candidate = candidateOf(limits[i]);
    if (candidate === undefined) return decision;
    // Never enforced: it counts every request the live call saw, alone on its own counter.
    const own = id + CANDIDATE_SUFFIX + candidate.id;
    const shadow = getAlgorithm(candidate.algorithm).decide(states.get(own), candidate, now, cost);
    if (shadow.decision.allowed && cost > 0) states.set(own, shadow.state);
    return { ...decision, candidate: shadow.decision.allowed };
  });
}

function shadowOf(match: DescriptorMatch | undefined): boolean {
  return match?.shadowMode ?? false;
}
