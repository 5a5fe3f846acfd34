/**
 * floodgate as soaked by `npm run soak`: the real app and objects (everything
 * `src/worker.ts` exports) over the soak rules (`src/bench/soak-rules.json`).
 */
import { isolateContexts } from "../context/isolate.ts";
import { createApp } from "../gateway/app.ts";
import { compileOnce } from "../rules/index.ts";
import { LiveRules } from "../rules/live.ts";
import soakRules from "./soak-rules.json";

export * from "../worker.ts";

/**
 * The compiled soak rules, once per isolate.
 *
 * @example
 * soakRulesCompiled().domains.get("soak");
 */
export const soakRulesCompiled = compileOnce(soakRules, "src/bench/soak-rules.json");

export default createApp(isolateContexts(new LiveRules(soakRulesCompiled)));
