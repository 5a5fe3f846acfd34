/**
 * The override that applies to a request descriptor at an instant: the
 * exact one, else the wildcard with the longest prefix of the last value,
 * skipping any expired by `now` (the clock is passed in; no timer removes
 * them). At most one probe per prefix length present, whatever the count.
 */
import type { CompiledDomain, DescriptorEntry, DescriptorMatch } from "../rules/types.ts";
import { exactKey, headKey } from "./descriptor.ts";
import type { CompiledOverride, OverrideTable } from "./types.ts";

/**
 * The override of `entries` in force at `now`, if any.
 *
 * @example
 * lookupOverride(table, [{ key: "user", value: "acme-42" }], Date.now())?.info.descriptor; // "user=acme-*"
 */
export function lookupOverride(table: OverrideTable, entries: readonly DescriptorEntry[], now: number): CompiledOverride | undefined {
  if (entries.length === 0) return undefined;
  if (table.exact.size > 0) {
    const exact = table.exact.get(exactKey(entries));
    if (exact !== undefined && now < exact.expiresAtMs) return exact;
  }
  if (table.prefixLengths.length === 0) return undefined;
  const head = `${headKey(entries)}\u0000`;
  const value = entries[entries.length - 1].value;
  for (const length of table.prefixLengths) {
    if (length > value.length) continue;
    const found = table.wildcard.get(head + value.slice(0, length));
    if (found !== undefined && now < found.expiresAtMs) return found;
  }
  return undefined;
}

/**
 * The match an override makes for `entries` in `domain` at `now`, in the
 * shape of a rules match (it replaces the rules' limits of that descriptor),
 * carrying which override it is; undefined when none applies.
 *
 * @example
 * const match = overrideMatch(domain, [{ key: "user", value: "acme" }], Date.now());
 * match?.override?.descriptor; // "user=acme"
 */
export function overrideMatch(domain: CompiledDomain, entries: readonly DescriptorEntry[], now: number): DescriptorMatch | undefined {
  const table = domain.overrides as OverrideTable | undefined;
  if (table === undefined) return undefined;
  const found = lookupOverride(table, entries, now);
  if (found === undefined) return undefined;
  return { node: found.node, limits: found.limits, unlimited: found.unlimited, shadowMode: false, override: found.info };
}
