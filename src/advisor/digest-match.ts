/**
 * Matching sampled descriptors, whose client-chosen values are digests,
 * against a rules tree (docs/advisor.md, "Replay"). An exact value in the
 * rules matches a digested entry when `digestValue(ruleValue, shardKey)`
 * equals it (a `path` entry: when each digested segment is the digest of
 * the rule value's segment there): the entry is given back the rule's raw
 * value and the real matcher
 * (src/rules/match/match.ts) decides. A wildcard or an address range cannot be
 * decided on a digest; a digested entry that no exact value claims, at a
 * level that has either for its key, is reported undecidable rather than
 * guessed.
 */
import { RANGE_KEY } from "../rules/match/cidr-values.ts";
import { matchDescriptor } from "../rules/match/match.ts";
import type { CompiledDomain, CompiledRules, DescriptorEntry, DescriptorLevel, DescriptorMatch } from "../rules/types.ts";
import type { ShardKey } from "../stored/shard-hash.ts";
import { digestValue, hasDigestedSegment, looksDigested } from "./digest.ts";
import { pathSegmentDigest } from "./route-shape.ts";
import { SAMPLE_ROW_VERSION, type SampleRow } from "./sample-row.ts";

/** Raw exact values of a domain's rules by their digest, and the segments of its exact `path` values by theirs (`~` and the hex). */
export type DigestDictionary = ReadonlyMap<string, string>;

/** A descriptor's match in the rules, with the entries it was matched with (digests a rule value claims made raw). */
export type DigestMatch =
  | { readonly kind: "matched"; readonly entries: readonly DescriptorEntry[]; readonly match: DescriptorMatch | undefined }
  | { readonly kind: "undecidable"; readonly reason: string };

/**
 * Every exact value of a domain's tree, by its digest under the
 * deployment's `shardKey` (docs/advisor.md, "Values are digests"), and each
 * segment of its exact `path` values. Without the key the dictionary is
 * empty: a digested entry then matches only key-only nodes.
 *
 * @example
 * const dictionary = await digestDictionary(domain, shardKey);
 * dictionary.get(await digestValue("vip-key", shardKey)); // "vip-key"
 */
export async function digestDictionary(domain: CompiledDomain, shardKey: ShardKey | undefined): Promise<DigestDictionary> {
  const dictionary = new Map<string, string>();
  if (shardKey === undefined) return dictionary;
  const values = new Set<string>();
  const segments = new Set<string>();
  const walk = (level: DescriptorLevel): void => {
    for (const node of level.exact.values()) {
      if (node.value !== undefined) values.add(node.value);
      if (node.key === "path" && node.value !== undefined) for (const segment of node.value.split("/")) if (segment !== "") segments.add(segment);
      walk(node.children);
    }
    for (const list of level.wildcards.values()) for (const { node } of list) walk(node.children);
    for (const node of level.keyOnly.values()) walk(node.children);
    for (const node of level.ranges?.values() ?? []) walk(node.children);
  };
  walk(domain.root);
  for (const value of values) dictionary.set(await digestValue(value, shardKey), value);
  for (const segment of segments) dictionary.set(await pathSegmentDigest(segment, shardKey), segment);
  return dictionary;
}

/**
 * The `domain/key`s whose digested values in `rows` the rules could match
 * only with the deployment's key: a key some exact value of the rules names
 * (rows of format 1 hold unkeyed digests and are not counted). Empty: the
 * replay is the same with or without the key.
 *
 * @example
 * digestsToMatch(sample.rows, [proposed, inForce]); // ["api/api_key"] when the rules name an api_key value
 */
export function digestsToMatch(rows: readonly SampleRow[], rules: readonly CompiledRules[]): string[] {
  const named = new Set<string>();
  const walk = (domain: string, level: DescriptorLevel): void => {
    for (const node of level.exact.values()) {
      named.add(`${domain}/${node.key}`);
      walk(domain, node.children);
    }
    for (const list of level.wildcards.values()) for (const { node } of list) walk(domain, node.children);
    for (const node of level.keyOnly.values()) walk(domain, node.children);
    for (const node of level.ranges?.values() ?? []) walk(domain, node.children);
  };
  for (const set of rules) for (const [name, domain] of set.domains) walk(name, domain.root);
  const needed = new Set<string>();
  for (const row of rows) {
    if (row.v !== SAMPLE_ROW_VERSION) continue;
    for (const d of row.descriptors)
      for (const e of d.entries) {
        const at = `${row.domain}/${e.key}`;
        if (named.has(at) && (looksDigested(e.value) || hasDigestedSegment(e.value))) needed.add(at);
      }
  }
  return [...needed].sort();
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
    if (!level.exact.has(`${entry.key}\u0000${entry.value}`) && (looksDigested(entry.value) || hasDigestedSegment(entry.value))) {
      const raw = dictionary.get(entry.value) ?? rawPath(dictionary, entry.value);
      if (raw !== undefined && level.exact.has(`${entry.key}\u0000${raw}`)) own = { key: entry.key, value: raw };
      else if ((level.wildcards.has(entry.key) && !segmentAligned(level, entry)) || (level.ranges !== undefined && entry.key === RANGE_KEY)) {
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

// A sampled path with its digested segments given back, when the dictionary knows every one.
function rawPath(dictionary: DigestDictionary, path: string): string | undefined {
  if (!hasDigestedSegment(path)) return undefined;
  const segments = path.split("/").map((segment) => (looksDigested(segment) && segment.startsWith("~") ? dictionary.get(segment) : segment));
  return segments.every((segment) => segment !== undefined) ? segments.join("/") : undefined;
}

// A path whose digested segments every wildcard of its key can only span whole (each `*` between
// slashes or the ends, as `/v1/*`): the pattern matches it exactly when it matches the raw path, for
// the segments the pattern spells are shown raw (route-shape.ts names them). `*.png` is not: its
// literal could fall inside a digested segment.
function segmentAligned(level: DescriptorLevel, entry: DescriptorEntry): boolean {
  if (looksDigested(entry.value) && !entry.value.startsWith("/")) return false;
  for (const { node } of level.wildcards.get(entry.key) ?? []) {
    const pattern = node.value ?? "";
    for (let i = pattern.indexOf("*"); i >= 0; i = pattern.indexOf("*", i + 1)) {
      const before = i === 0 ? "/" : pattern[i - 1];
      const after = i === pattern.length - 1 ? "/" : pattern[i + 1];
      if ((before !== "/" && before !== "*") || (after !== "/" && after !== "*")) return false;
    }
  }
  return true;
}
