/**
 * The shapes of overrides (docs/admin-api.md, "Overrides"): as stored, as
 * the RulesObject hands them to isolates, and compiled for lookups.
 */
import type { CompiledLimit, CompiledNode, DescriptorEntry, DomainOverrides, OverrideInfo } from "../rules/types.ts";

export type { OverrideInfo };
export type { OverridesRecord, StoredOverride } from "../stored/override-tables.ts";

/** A parsed descriptor pattern: exact entries, the last one's value maybe a prefix. */
export interface DescriptorPattern {
  readonly entries: readonly DescriptorEntry[];
  /** True when the last entry's value is a prefix (it was written with a trailing `*`). */
  readonly wildcard: boolean;
}

/** One compiled override: the node a match carries, and when it stops applying. */
export interface CompiledOverride {
  readonly info: OverrideInfo;
  /** Milliseconds since the epoch from which it no longer applies (Infinity: never). */
  readonly expiresAtMs: number;
  /** A node of its own: its limits (none when unlimited), its facts and stat key. */
  readonly node: CompiledNode;
  readonly limits: readonly CompiledLimit[];
  readonly unlimited: boolean;
}

/**
 * One domain's overrides, indexed so a lookup costs hash probes, not a scan:
 * exact ones by the descriptor's key, wildcards by the descriptor's head
 * and a prefix of its last value, with the prefix lengths present, longest first.
 */
export interface OverrideTable extends DomainOverrides {
  readonly exact: ReadonlyMap<string, CompiledOverride>;
  readonly wildcard: ReadonlyMap<string, CompiledOverride>;
  /** Distinct wildcard prefix lengths (UTF-16 units), longest first. */
  readonly prefixLengths: readonly number[];
  readonly size: number;
}
