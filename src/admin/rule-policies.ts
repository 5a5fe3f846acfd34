/**
 * Every limit of the rules in force, as the dashboard names policies
 * (domain, the rule's Envoy stat key, limit name), so rule health can tell
 * the rules that saw no traffic from those that did.
 */
import type { PolicyRef } from "../metrics/traffic-shape.ts";
import type { CompiledRules, DescriptorLevel } from "../rules/types.ts";

/**
 * The policies of `rules`, in file order.
 *
 * @example
 * policiesOf(rules); // [{ domain: "api", descriptor: "user", limit: "five", window_seconds: 60, shadow: false }]
 */
export function policiesOf(rules: CompiledRules): PolicyRef[] {
  const refs: PolicyRef[] = [];
  for (const domain of rules.domains.values()) walk(domain.domain, domain.root, refs);
  return refs;
}

function walk(domain: string, level: DescriptorLevel, refs: PolicyRef[]): void {
  const nodes = [...level.exact.values(), ...[...level.wildcards.values()].flat().map((w) => w.node), ...level.keyOnly.values()];
  for (const node of nodes) {
    for (const limit of node.limits) {
      refs.push({ domain, descriptor: node.statKey, limit: limit.name, window_seconds: limit.windowMs / 1000, shadow: node.shadowMode });
      // A candidate is a policy of its own, never enforced: a shadow one (docs/rules.md, "Gradual and soft enforcement").
      const candidate = limit.candidate;
      if (candidate !== undefined)
        refs.push({ domain, descriptor: node.statKey, limit: candidate.name, window_seconds: candidate.windowMs / 1000, shadow: true });
    }
    walk(domain, node.children, refs);
  }
}
