/**
 * Every limit of compiled rules, so a report lists the limits no sampled
 * request met too (docs/advisor.md, "Advice": a limit without traffic).
 */
import type { CompiledLimit, CompiledRules, DescriptorLevel } from "../rules/types.ts";

/**
 * Each domain's limits, tree order, with the node's shadow mode.
 *
 * @example
 * for (const { domain, limit } of limitsOf(rules)) console.log(domain, limit.name);
 */
export function limitsOf(rules: CompiledRules): { readonly domain: string; readonly limit: CompiledLimit; readonly shadow: boolean }[] {
  const found: { domain: string; limit: CompiledLimit; shadow: boolean }[] = [];
  for (const [domain, compiled] of rules.domains) {
    const walk = (level: DescriptorLevel): void => {
      const nodes = [
        ...level.exact.values(),
        ...(level.ranges?.values() ?? []),
        ...[...level.wildcards.values()].flatMap((list) => list.map((w) => w.node)),
        ...level.keyOnly.values(),
      ];
      for (const node of nodes) {
        for (const limit of node.limits) found.push({ domain, limit, shadow: node.shadowMode });
        walk(node.children);
      }
    };
    walk(compiled.root);
  }
  return found;
}
