/**
 * floodgate as benchmarked: everything `src/worker.ts` exports (the Durable
 * Object classes and entrypoints, so the project's wrangler.toml bindings
 * all resolve), with the default export swapped for the same gateway app
 * over the bench rules (`bench/rules/bench.json`) instead of the bundled
 * `rules.json`. `npm run bench` builds it with the project's wrangler.toml
 * and this file as the entry.
 */
import { isolateContexts } from "../../src/context/isolate.ts";
import { createApp } from "../../src/gateway/app.ts";
import { compileOnce } from "../../src/rules/index.ts";
import { LiveRules } from "../../src/rules/live.ts";
import benchRules from "../rules/bench.json";

export * from "../../src/worker.ts";

/**
 * The compiled bench rules, once per isolate (as `bundledRules` does).
 *
 * @example
 * benchRulesCompiled().domains.get("bench-sharded");
 */
export const benchRulesCompiled = compileOnce(benchRules, "bench/rules/bench.json");

export default createApp(isolateContexts(new LiveRules(benchRulesCompiled)));
