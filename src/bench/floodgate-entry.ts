/**
 * floodgate as benchmarked: everything `src/worker.ts` exports (the Durable
 * Object classes and entrypoints, so the project's wrangler.toml bindings
 * all resolve), with the default export swapped for the same gateway app
 * over the bench rules (`src/bench/rules.json`) instead of the bundled
 * `rules.json`. `npm run bench` builds it with the project's wrangler.toml
 * and this file as the entry.
 */
import { isolateContexts } from "../context/isolate.ts";
import { createApp } from "../gateway/app.ts";
import { compileOnce } from "../rules/index.ts";
import { LiveRules } from "../rules/live.ts";
import benchRules from "./rules.json";

export * from "../worker.ts";

/**
 * The compiled bench rules, once per isolate (as `bundledRules` does).
 *
 * @example
 * benchRulesCompiled().domains.get("bench-sharded");
 */
export const benchRulesCompiled = compileOnce(benchRules, "src/bench/rules.json");

export default createApp(isolateContexts(new LiveRules(benchRulesCompiled)));
