/**
 * The rules deployed with the worker (`rules.json`), compiled once per isolate.
 */
import rulesJson from "../../rules.json";
import { compileRules } from "./index.ts";
import type { CompiledRules } from "./types.ts";

let compiled: CompiledRules | undefined;

/**
 * The compiled bundled rules. `npm run dev` and `npm run deploy` run
 * `rules:check` first, so an invalid file is stopped before it ships; if one
 * slips through anyway, the error names every problem.
 *
 * @example
 * const rules = bundledRules();
 * rules.domains.get("api");
 */
export function bundledRules(): CompiledRules {
  if (compiled) return compiled;
  const result = compileRules(rulesJson);
  if (!result.ok) {
    throw new Error(`rules.json is invalid:\n${result.errors.map((e) => `${e.path}: ${e.message}`).join("\n")}`);
  }
  return (compiled = result.rules);
}
