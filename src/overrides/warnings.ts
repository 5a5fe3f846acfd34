/**
 * Warnings for a stored override (docs/admin-api.md, "Overrides"): a
 * wildcard override whose prefix matches a value the client writes itself
 * (a header, cookie, query parameter or JSON body field, by some route of
 * the domain) lets any client choose to leave the rules' limits of that
 * descriptor for the override's, by typing a value with that prefix: the
 * same door as a `replaces` on a client-written pattern (docs/rules.md, "A
 * tier a client cannot choose"). An exact value is a credential you
 * issued, and `key=*` matches every value (no client chooses it), so
 * neither is warned about.
 */
import type { CompiledDomain, EntrySource, RuleError } from "../rules/types.ts";
import type { DescriptorPattern } from "./types.ts";

const CLIENT_WRITTEN: ReadonlySet<EntrySource["kind"]> = new Set(["header", "cookie", "query", "json_body"]);

/**
 * The warnings for `pattern` (a parsed override descriptor) over `domain`'s routes; empty when none.
 *
 * @example
 * overrideWarnings(domain, { entries: [{ key: "api_key", value: "partner-" }], wildcard: true });
 * // [{ path: "$.descriptor", message: 'any client sending header "x-api-key" starting with "partner-" gets this override\'s limit …' }]
 */
export function overrideWarnings(domain: CompiledDomain, pattern: DescriptorPattern): RuleError[] {
  const last = pattern.entries.at(-1);
  if (!pattern.wildcard || last === undefined || last.value === "") return [];
  const keys = pattern.entries.map((e) => e.key).join("\u0000");
  const sources = new Set<string>();
  for (const route of domain.routes) {
    for (const spec of route.descriptors) {
      if (spec.map((e) => e.key).join("\u0000") !== keys) continue;
      const source = spec[spec.length - 1].source;
      if (CLIENT_WRITTEN.has(source.kind)) sources.add(sourceName(source));
    }
  }
  if (sources.size === 0) return [];
  const by = [...sources].sort().join(" or ");
  return [
    {
      path: "$.descriptor",
      message:
        `any client sending ${by} starting with ${JSON.stringify(last.value)} gets this override's limit in place of the rules' limits of "${last.key}": ` +
        "the client chooses that value by typing it. Override exact values you issued, or key the tier on a verified claim (jwt_claim)",
    },
  ];
}

function sourceName(source: EntrySource): string {
  switch (source.kind) {
    case "header":
    case "cookie":
    case "query":
      return `${source.kind === "query" ? "query parameter" : source.kind} ${JSON.stringify(source.name)}`;
    case "json_body":
      return `JSON body field ${JSON.stringify(source.path.join("."))}`;
    default:
      return source.kind;
  }
}
