/**
 * `rules:check` warnings about `replaces` a client can reach by typing a
 * value (docs/rules.md, "A tier a client cannot choose"): a limit that
 * drops another (`replaces`) on a node that a route reaches through a
 * header, query parameter or cookie the client writes, where that node
 * takes any value or a wildcard (`partner-*`). Any client sending a value
 * of that shape then leaves the replaced limit (the per-IP one, say).
 * Key such a tier on a verified claim (`jwt_claim`) or on exact values you
 * issued; an exact value is a credential, so it is not warned about.
 */
import { indexPath, type JsonObject, keyPath } from "./reader.ts";
import type { RuleError } from "./types.ts";
import { documentsWarnings, isJsonObject } from "./warning-walk.ts";

const CLIENT_SOURCES = ["header", "cookie", "query"] as const;

/** A node a route descriptor reaches, and the client-written entry that chose it, if any. */
interface Reached {
  readonly node: JsonObject;
  readonly at: string;
  readonly chosenBy?: string;
}

/**
 * Warnings for `rules` (one document or an array of them). Meant for rules that already compile.
 *
 * @example
 * replacesWarnings({ domain: "a", descriptors: [{ key: "k", value: "p-*", rate_limit: { unit: "minute", requests_per_unit: 9, replaces: [{ name: "ip" }] } }],
 *   routes: [{ match: {}, descriptors: [[{ key: "k", header: "x-k" }]] }] });
 * // [{ path: "$.descriptors[0].rate_limit.replaces", message: 'any client sending header "x-k" matching "p-*" drops ip: …' }]
 */
export function replacesWarnings(rules: unknown): RuleError[] {
  return documentsWarnings(rules, documentWarnings);
}

function documentWarnings(doc: JsonObject, at: string, warnings: RuleError[]): void {
  const routes = Array.isArray(doc.routes) ? doc.routes : [];
  const said = new Set<string>();
  for (const route of routes) {
    if (!isJsonObject(route) || !Array.isArray(route.descriptors)) continue;
    for (const descriptor of route.descriptors) {
      if (!Array.isArray(descriptor)) continue;
      for (const reached of reach(doc.descriptors, keyPath(at, "descriptors"), descriptor, 0, undefined)) {
        if (reached.chosenBy === undefined) continue;
        for (const [limit, limitAt] of limitsOf(reached.node, reached.at)) {
          const names = replacedNames(limit.replaces);
          const path = keyPath(limitAt, "replaces");
          if (names.length === 0 || said.has(path)) continue;
          said.add(path);
          const shape = typeof reached.node.value === "string" ? `matching ${JSON.stringify(reached.node.value)}` : "of any value";
          warnings.push({
            path,
            message:
              `any client sending ${reached.chosenBy} ${shape} drops ${names.join(", ")}: the client chooses that value by typing it. ` +
              "Key the tier on a verified claim (jwt_claim) or on exact values you issued, not on a pattern",
          });
        }
      }
    }
  }
}

// The nodes `descriptor` (from entry `i` on) reaches under `level`, as Envoy matches: key, then value or pattern.
function reach(level: unknown, at: string, descriptor: readonly unknown[], i: number, chosenBy: string | undefined): Reached[] {
  const entry = descriptor[i];
  if (!Array.isArray(level) || !isJsonObject(entry)) return [];
  const source = CLIENT_SOURCES.find((s) => typeof entry[s] === "string");
  const literal = typeof entry.value === "string" ? entry.value : undefined;
  const out: Reached[] = [];
  level.forEach((node, n) => {
    if (!isJsonObject(node) || node.key !== entry.key) return;
    const value = typeof node.value === "string" ? node.value : undefined;
    if (literal !== undefined && value !== undefined && !patternMatches(value, literal)) return;
    // A client-written value reaches an exact node too, but only by knowing that value: a credential, not a choice.
    const open = value === undefined || value.includes("*");
    const by = chosenBy ?? (source !== undefined && open ? `${source} ${JSON.stringify(entry[source])}` : undefined);
    const nodeAt = indexPath(at, n);
    if (i === descriptor.length - 1) out.push({ node, at: nodeAt, ...(by !== undefined ? { chosenBy: by } : {}) });
    else out.push(...reach(node.descriptors, keyPath(nodeAt, "descriptors"), descriptor, i + 1, by));
  });
  return out;
}

function limitsOf(node: JsonObject, at: string): [JsonObject, string][] {
  if (isJsonObject(node.rate_limit)) return [[node.rate_limit, keyPath(at, "rate_limit")]];
  if (!Array.isArray(node.rate_limits)) return [];
  const out: [JsonObject, string][] = [];
  node.rate_limits.forEach((limit, i) => {
    if (isJsonObject(limit)) out.push([limit, indexPath(keyPath(at, "rate_limits"), i)]);
  });
  return out;
}

function replacedNames(replaces: unknown): string[] {
  if (!Array.isArray(replaces)) return [];
  return replaces.flatMap((r) => (isJsonObject(r) && typeof r.name === "string" ? [JSON.stringify(r.name)] : []));
}

// `*` matches any run of characters, as rule values do (src/rules/match/glob.ts).
function patternMatches(pattern: string, value: string): boolean {
  if (!pattern.includes("*")) return pattern === value;
  const parts = pattern.split("*").map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${parts.join(".*")}$`, "s").test(value);
}
