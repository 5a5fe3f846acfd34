/**
 * What `rules:check`'s warnings share (docs/rules.md): walking each rules
 * document of a file, one or an array of them, with its JSON path. The
 * warnings read rules that already compile, so a part that is not an
 * object is passed over, never reported.
 */
import { indexPath, type JsonObject } from "./reader.ts";
import type { RuleError } from "./types.ts";

/**
 * Whether `value` is a JSON object (not null, not an array).
 *
 * @example
 * isJsonObject({ domain: "api" }); // true
 */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The warnings `warnDocument` gives for each object document of `rules` (one document or an array of them).
 *
 * @example
 * const warnings = documentsWarnings(parsed, (doc, at, out) => { if (doc.domain === "") out.push({ path: at, message: "…" }); });
 */
export function documentsWarnings(rules: unknown, warnDocument: (doc: JsonObject, at: string, warnings: RuleError[]) => void): RuleError[] {
  const warnings: RuleError[] = [];
  const visit = (doc: unknown, at: string) => {
    if (isJsonObject(doc)) warnDocument(doc, at, warnings);
  };
  if (!Array.isArray(rules)) visit(rules, "$");
  else for (const [i, doc] of rules.entries()) visit(doc, indexPath("$", i));
  return warnings;
}
