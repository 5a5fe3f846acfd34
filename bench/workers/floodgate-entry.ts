/**
 * floodgate as benchmarked: everything `src/worker.ts` exports (the Durable
 * Object classes and entrypoints, so the project's wrangler.toml bindings
 * all resolve), with the default export swapped for the same gateway app
 * over the bench rules (`bench/rules/bench.json`) instead of the bundled
 * `rules.json`. `npm run bench` builds it with the project's wrangler.toml
 * and this file as the entry.
 *
 * `GET /__bench/usage` answers the counter objects' tally for the cost model,
 * and what the simulated distance's calls really waited (round-trip.ts);
 * `POST /__bench/scan` drives the memory scan (bench/workers/scan.ts).
 * Bench-only variables: `BENCH_RTT_MS`, a one-way delay put before and after
 * every call to a counter object, as if the objects lived that far away
 * (bench/README.md, "Round trip"); `BENCH_COALESCING=off`, the same gateway
 * with coalescing off, to measure what it buys (no deployment can turn it off).
 */
import type { Env } from "../../src/config.ts";
import { isolateContexts } from "../../src/context/isolate.ts";
import { createApp } from "../../src/gateway/app.ts";
import { compileOnce } from "../../src/rules/index.ts";
import { LiveRules } from "../../src/rules/live.ts";
import benchRules from "../rules/bench.json";
import { simulatedRoundTrips, withRoundTrip } from "./round-trip.ts";
import { scanSlice } from "./scan.ts";
import { CountedCounterObject, usageResponse } from "./usage.ts";

export * from "../../src/worker.ts";
// The same class, counted for the cost model (bench/README.md, "Cost").
export { CountedCounterObject as CounterObject };

/**
 * The compiled bench rules, once per isolate (as `bundledRules` does).
 *
 * @example
 * benchRulesCompiled().domains.get("bench-sharded");
 */
export const benchRulesCompiled = compileOnce(benchRules, "bench/rules/bench.json");

const rules = new LiveRules(benchRulesCompiled);
const app = createApp(isolateContexts(rules));
const uncoalesced = createApp(isolateContexts(rules, { coalesce: false }));

export default {
  fetch(request, env, ctx) {
    const url = new URL(request.url);
    if (url.pathname === "/__bench/usage") return usageResponse(simulatedRoundTrips());
    if (url.pathname === "/__bench/scan") return scanSlice(url, env);
    const gatewayApp = env.BENCH_COALESCING === "off" ? uncoalesced : app;
    return gatewayApp.fetch(request, withRoundTrip(env), ctx);
  },
} satisfies ExportedHandler<Env & { BENCH_RTT_MS?: string; BENCH_COALESCING?: string }>;
