/**
 * floodgate as soaked by `npm run soak`: the real app and objects (everything
 * `src/worker.ts` exports) over the soak rules (`src/bench/soak-rules.json`).
 */
import { createApp } from "../gateway/app.ts";
import { compileRules } from "../rules/index.ts";
import type { CompiledRules } from "../rules/types.ts";
import soakRules from "./soak-rules.json";

export * from "../worker.ts";

let compiled: CompiledRules | undefined;

/**
 * The compiled soak rules, once per isolate.
 *
 * @example
 * soakRulesCompiled().domains.get("soak");
 */
export function soakRulesCompiled(): CompiledRules {
  if (compiled) return compiled;
  const result = compileRules(soakRules, { source: "src/bench/soak-rules.json" });
  if (!result.ok) throw new Error(`src/bench/soak-rules.json is invalid:\n${result.errors.map((e) => `${e.path}: ${e.message}`).join("\n")}`);
  return (compiled = result.rules);
}

export default createApp(soakRulesCompiled);
