/**
 * `rules:check` warnings about descriptor values (docs/rules.md, "Long
 * values" and "The origin's view"): a rule value written as the stored key
 * of a long value (rules match a request's full value, so it matches
 * nothing), and per-key placement keyed on a value the client chooses (each
 * new value a client invents is another Durable Object).
 */
import { indexPath, type JsonObject, keyPath } from "./reader.ts";
import type { RuleError } from "./types.ts";
import { documentsWarnings, isJsonObject } from "./warning-walk.ts";

// The stored form of a long value: a readable prefix, "…sha256:" and 64 hex digits.
const DIGEST_KEY = /…sha256:[0-9a-f]{64}$/;

/** Where a route entry's value comes from that the client writes freely. */
const CLIENT_SOURCES = ["header", "cookie", "query"] as const;

/**
 * Warnings for `rules` (one document or an array of them). Meant for rules
 * that already compile.
 *
 * @example
 * valueWarnings({ domain: "a", placement: "per_key", descriptors: [{ key: "k" }], routes: [{ match: {}, descriptors: [[{ key: "k", header: "x-k" }]] }] });
 * // [{ path: "$.routes[0].descriptors[0][0]", message: 'placement "per_key" makes one Durable Object per value of header "x-k", …' }]
 */
export function valueWarnings(rules: unknown): RuleError[] {
  return documentsWarnings(rules, documentWarnings);
}

function documentWarnings(doc: JsonObject, at: string, warnings: RuleError[]): void {
  digestWarnings(doc.descriptors, keyPath(at, "descriptors"), warnings);
  if (doc.placement !== "per_key") return;
  const routes = Array.isArray(doc.routes) ? doc.routes : [];
  routes.forEach((route, r) => {
    if (!isJsonObject(route) || !Array.isArray(route.descriptors)) return;
    route.descriptors.forEach((descriptor, d) => {
      if (!Array.isArray(descriptor)) return;
      descriptor.forEach((entry, e) => {
        if (!isJsonObject(entry)) return;
        const source = CLIENT_SOURCES.find((s) => typeof entry[s] === "string");
        if (source === undefined) return;
        warnings.push({
          path: indexPath(indexPath(keyPath(indexPath(keyPath(at, "routes"), r), "descriptors"), d), e),
          message:
            `placement "per_key" makes one Durable Object per value of ${source} ${JSON.stringify(entry[source])}, which the client chooses: ` +
            `a client sending a new value each time creates a new object each time; use placement "sharded" (the default)`,
        });
      });
    });
  });
}

function digestWarnings(level: unknown, at: string, warnings: RuleError[]): void {
  if (!Array.isArray(level)) return;
  level.forEach((node, i) => {
    if (!isJsonObject(node)) return;
    const nodeAt = indexPath(at, i);
    if (typeof node.value === "string" && DIGEST_KEY.test(node.value)) {
      warnings.push({
        path: keyPath(nodeAt, "value"),
        message:
          "is written as the stored key of a long value, but rules match a request's full value, so no request matches it: " +
          'write the value itself, or a wildcard ("prefix*", "*suffix"), which matches long values as it does short ones',
      });
    }
    digestWarnings(node.descriptors, keyPath(nodeAt, "descriptors"), warnings);
  });
}
