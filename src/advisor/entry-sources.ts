/**
 * How the sample keeps each value of a request descriptor
 * (docs/advisor.md, "Values are digests"): raw when its route entry reads a
 * literal, the method or the host; as a path with the segments the rules do
 * not name digested (route-shape.ts) when it reads the path; digested for
 * everything else (header, query, cookie, remote_address, jwt_claim,
 * json_body, and any source added later). A descriptor does not say which
 * route entry made it, so a position takes the most guarded form that any
 * route entry of the domain with the same keys at that position calls for:
 * never more than the rules allow.
 */
import type { CompiledDomain, DescriptorEntry, EntrySource } from "../rules/types.ts";

/** How one value is kept: as it is, as a path with unnamed segments digested, or digested. */
export type EntryForm = "raw" | "path" | "digest";

const RAW_SOURCES: ReadonlySet<EntrySource["kind"]> = new Set(["value", "method", "host"]);

/** Per compiled domain: key sequence (keys joined by U+0000) → each position's form. */
const forms = new WeakMap<CompiledDomain, Map<string, EntryForm[]>>();

/** The more guarded of two forms. */
const GUARD: Record<EntryForm, number> = { raw: 0, path: 1, digest: 2 };

/**
 * For each entry of `entries` (a descriptor of `domain`), how the sample
 * keeps its value; a descriptor of keys no route gives is digested whole.
 *
 * @example
 * entryForms(domain, [{ key: "path", value: "/x" }, { key: "method", value: "GET" }, { key: "api_key", value: "secret" }]); // ["path", "raw", "digest"]
 */
export function entryForms(domain: CompiledDomain, entries: readonly DescriptorEntry[]): readonly EntryForm[] {
  let byKeys = forms.get(domain);
  if (byKeys === undefined) forms.set(domain, (byKeys = formsOf(domain)));
  return byKeys.get(keysOf(entries)) ?? entries.map(() => "digest");
}

function formOf(source: EntrySource): EntryForm {
  return source.kind === "path" ? "path" : RAW_SOURCES.has(source.kind) ? "raw" : "digest";
}

function formsOf(domain: CompiledDomain): Map<string, EntryForm[]> {
  const byKeys = new Map<string, EntryForm[]>();
  for (const route of domain.routes) {
    for (const spec of route.descriptors) {
      const keys = keysOf(spec);
      const own = spec.map((entry) => formOf(entry.source));
      const held = byKeys.get(keys);
      byKeys.set(keys, held === undefined ? own : held.map((was, i) => (GUARD[was] >= GUARD[own[i]] ? was : own[i])));
    }
  }
  return byKeys;
}

function keysOf(entries: readonly { readonly key: string }[]): string {
  return entries.map((entry) => entry.key).join("\u0000");
}
