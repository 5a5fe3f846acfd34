/**
 * floodgate as benchmarked: everything `src/worker.ts` exports (the Durable
 * Object classes and entrypoints, so the project's wrangler.toml bindings
 * all resolve), with the default export swapped for the same gateway app
 * over the bench rules (`src/bench/rules.json`) instead of the bundled
 * `rules.json`. `npm run bench` builds it with the project's wrangler.toml
 * and this file as the entry.
 */
import { createApp } from "../gateway/app.ts";
import { compileRules } from "../rules/index.ts";
import type { CompiledRules } from "../rules/types.ts";
import benchRules from "./rules.json";

export * from "../worker.ts";

let compiled: CompiledRules | undefined;

/**
 * The compiled bench rules, once per isolate (as `bundledRules` does).
 *
 * @example
 * benchRulesCompiled().domains.get("bench-sharded");
 */
export function benchRulesCompiled(): CompiledRules {
  if (compiled) return compiled;
  const result = compileRules(benchRules, { source: "src/bench/rules.json" });
  if (!result.ok) throw new Error(`src/bench/rules.json is invalid:\n${result.errors.map((e) => `${e.path}: ${e.message}`).join("\n")}`);
  return (compiled = result.rules);
}

export default createApp(benchRulesCompiled);
