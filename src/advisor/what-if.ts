/**
 * What proposed rules would have done to a sample, beside the rules in
 * force (docs/advisor.md, "Replay"): both replayed on the same rows.
 */
import type { CompiledRules } from "../rules/types.ts";
import type { ShardKey } from "../stored/shard-hash.ts";
import { replay, replayRules } from "./replay.ts";
import { type ReplayReport, replayReport } from "./report.ts";
import type { SampleRow } from "./sample-row.ts";

/**
 * The report of `proposed` against `inForce` on `rows` (in clock order).
 * `shardKey`: the deployment's, which its sample's digests are keyed with
 * (undefined: digested values match key-only nodes only).
 *
 * @example
 * const report = await whatIf(proposed.rules, inForce.rules, sample.rows, edge.shardKey);
 * report.limits.map((l) => [l.name, l.refusals, l.advice.suggested_limit]);
 */
export async function whatIf(
  proposed: CompiledRules,
  inForce: CompiledRules,
  rows: readonly SampleRow[],
  shardKey: ShardKey | undefined,
): Promise<ReplayReport> {
  const [mine, theirs] = await Promise.all([replayRules(proposed, shardKey), replayRules(inForce, shardKey)]);
  return replayReport(replay(mine, rows), replay(theirs, rows), { proposed, inForce });
}
