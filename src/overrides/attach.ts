/**
 * Overrides laid over compiled rules: each domain with overrides becomes a
 * copy carrying its table, so every lookup that has the domain (a decision,
 * a counter lookup) finds them; rules and tables stay as compiled.
 */
import type { CompiledDomain, CompiledRules } from "../rules/types.ts";
import type { OverrideTable } from "./types.ts";

/**
 * `rules` with `tables` laid over its domains; `rules` itself when no
 * domain of it has overrides. Overrides of a domain the rules do not have
 * wait, unapplied, for rules that have it.
 *
 * @example
 * const rules = withOverrides(base, compileOverrides(record.rows));
 * rules.domains.get("api")?.overrides?.size; // 3
 */
export function withOverrides(rules: CompiledRules, tables: ReadonlyMap<string, OverrideTable>): CompiledRules {
  let domains: Map<string, CompiledDomain> | undefined;
  for (const [name, domain] of rules.domains) {
    const table = tables.get(name);
    if (table === undefined && domain.overrides === undefined) continue;
    domains ??= new Map(rules.domains);
    const { overrides: _old, ...bare } = domain;
    domains.set(name, Object.freeze(table === undefined ? bare : { ...bare, overrides: table }));
  }
  return domains === undefined ? rules : Object.freeze({ ...rules, domains });
}
