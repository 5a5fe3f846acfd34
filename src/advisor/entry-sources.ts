/**
 * Which values of a request descriptor the sample may keep raw
 * (docs/advisor.md, "Sample"): those whose route entry reads a literal, the
 * method, the host or the path. Everything else (header, query, cookie,
 * remote_address, jwt_claim, and any source added later) is digested. A
 * descriptor does not say which route entry made it, so a position is kept
 * raw only when every route entry of the domain with the same keys at that
 * position reads a source that is safe to show: never more than the rules allow.
 */
import type { CompiledDomain, DescriptorEntry, EntrySource } from "../rules/types.ts";

const SHOWN_SOURCES: ReadonlySet<EntrySource["kind"]> = new Set(["value", "method", "host", "path"]);

/** Per compiled domain: key sequence (keys joined by U+0000) → whether each position is shown raw. */
const masks = new WeakMap<CompiledDomain, Map<string, boolean[]>>();

/**
 * For each entry of `entries` (a descriptor of `domain`), whether its value
 * may be kept raw.
 *
 * @example
 * shownPositions(domain, [{ key: "path", value: "/x" }, { key: "api_key", value: "secret" }]); // [true, false]
 */
export function shownPositions(domain: CompiledDomain, entries: readonly DescriptorEntry[]): readonly boolean[] {
  let byKeys = masks.get(domain);
  if (byKeys === undefined) masks.set(domain, (byKeys = masksOf(domain)));
  return byKeys.get(keysOf(entries)) ?? entries.map(() => false);
}

function masksOf(domain: CompiledDomain): Map<string, boolean[]> {
  const byKeys = new Map<string, boolean[]>();
  for (const route of domain.routes) {
    for (const spec of route.descriptors) {
      const keys = keysOf(spec);
      const shown = spec.map((entry) => SHOWN_SOURCES.has(entry.source.kind));
      const held = byKeys.get(keys);
      byKeys.set(keys, held === undefined ? shown : held.map((was, i) => was && shown[i]));
    }
  }
  return byKeys;
}

function keysOf(entries: readonly { readonly key: string }[]): string {
  return entries.map((entry) => entry.key).join("\u0000");
}
