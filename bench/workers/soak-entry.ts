/**
 * floodgate as soaked by `npm run soak`: the real app and objects (everything
 * `src/worker.ts` exports) over the soak rules (`bench/rules/soak.json`).
 */
import { isolateContexts } from "../../src/admission/isolate-context.ts";
import { createApp } from "../../src/gateway/app.ts";
import { compileOnce } from "../../src/rules/index.ts";
import { LiveRules } from "../../src/isolate/live-rules.ts";
import soakRules from "../rules/soak.json";

export * from "../../src/worker.ts";

/**
 * The compiled soak rules, once per isolate.
 *
 * @example
 * soakRulesCompiled().domains.get("soak");
 */
export const soakRulesCompiled = compileOnce(soakRules, "bench/rules/soak.json");

export default createApp(isolateContexts(new LiveRules(soakRulesCompiled)));
