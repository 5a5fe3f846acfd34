/**
 * Matching sampled descriptors, whose client-chosen values are digests,
 * against a rules tree (docs/advisor.md, "Replay"). An exact value in the
 * rules matches a digested entry when `digestValue(ruleValue)` equals it:
 * the entry is given back the rule's raw value and the real matcher
 * (src/rules/match/match.ts) decides. A wildcard or an address range cannot be
 * decided on a digest; a digested entry that no exact value claims, at a
 * level that has either for its key, is reported undecidable rather than
 * guessed.
 */
import { RANGE_KEY } from "../rules/match/cidr-values.ts";
import { matchDescriptor } from "../rules/match/match.ts";
import type { CompiledDomain, DescriptorEntry, DescriptorLevel, DescriptorMatch } from "../rules/types.ts";
import { digestValue, looksDigested } from "./digest.ts";

/** Raw exact values of a domain's rules by their digest. */
export type DigestDictionary = ReadonlyMap<string, string>;

/** A descriptor's match in the rules, with the entries it was matched with (digests a rule value claims made raw). */
export type DigestMatch =
  | { readonly kind: "matched"; readonly entries: readonly DescriptorEntry[]; readonly match: DescriptorMatch | undefined }
  | { readonly kind: "undecidable"; readonly reason: string };

/**
 * Every exact value of a domain's tree, by its digest.
 *
 * @example
 * const dictionary = await digestDictionary(domain);
 * dictionary.get(await digestValue("vip-key")); // "vip-key"
 */
export async function digestDictionary(domain: CompiledDomain): Promise<DigestDictionary> {
  const values = new Set<string>();
  const walk = (level: DescriptorLevel): void => {
    for (const node of level.exact.values()) {
      if (node.value !== undefined) values.add(node.value);
      walk(node.children);
    }
    for (const list of level.wildcards.values()) for (const { node } of list) walk(node.children);
    for (const node of level.keyOnly.values()) walk(node.children);
    for (const node of level.ranges?.values() ?? []) walk(node.children);
  };
  walk(domain.root);
  const dictionary = new Map<string, string>();
  for (const value of values) dictionary.set(await digestValue(value), value);
  return dictionary;
}

/**
 * Match one sampled descriptor in `domain`, level by level as the live
 * matcher does.
 *
 * @example
 * matchSampled(domain, dictionary, [{ key: "api_key", value: "cust~3f9a0c12b7e4d6a1" }]);
 * // { kind: "matched", entries: [{ key: "api_key", value: "customer-1" }], match } when the rules name "customer-1"
 */
export function matchSampled(domain: CompiledDomain, dictionary: DigestDictionary, entries: readonly DescriptorEntry[]): DigestMatch {
  const resolved: DescriptorEntry[] = [];
  let level: DescriptorLevel = domain.root;
  for (const entry of entries) {
    let own = entry;
    if (!level.exact.has(`${entry.key}\u0000${entry.value}`) && looksDigested(entry.value)) {
      const raw = dictionary.get(entry.value);
      if (raw !== undefined && level.exact.has(`${entry.key}\u0000${raw}`)) own = { key: entry.key, value: raw };
      else if (level.wildcards.has(entry.key) || (level.ranges !== undefined && entry.key === RANGE_KEY)) {
        return { kind: "undecidable", reason: `"${entry.key}" is digested in the sample; a wildcard or address range of the rules cannot be decided on it` };
      }
    }
    resolved.push(own);
    if (resolved.length === entries.length) break;
    // The node this prefix selects, by the real matcher: its children are the next level.
    const prefix = matchDescriptor(domain, resolved);
    if (prefix === undefined) return { kind: "matched", entries: [...resolved, ...entries.slice(resolved.length)], match: undefined };
    level = prefix.node.children;
  }
  return { kind: "matched", entries: resolved, match: matchDescriptor(domain, resolved) };
}
