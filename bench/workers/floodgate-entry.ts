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
 * `GET /__bench/objects` every object class's requests, rows and active
 * time (object-tally.ts);
 * `POST /__bench/scan` drives the memory scan (bench/workers/scan.ts).
 * Bench-only variables: `BENCH_RTT_MS`, a one-way delay put before and after
 * every call to a counter object, as if the objects lived that far away
 * (bench/README.md, "Round trip"); `BENCH_COALESCING=off`, the same gateway
 * with coalescing off, to measure what it buys (no deployment can turn it off);
 * `BENCH_REGION` (A, B or C), the service's region on the simulated planet
 * (bench/workers/geography.ts; its tally at `GET /__bench/geo`).
 */
import type { Env } from "../../src/config.ts";
import { isolateContexts } from "../../src/admission/isolate-context.ts";
import { createApp } from "../../src/gateway/app.ts";
import { compileOnce } from "../../src/rules/index.ts";
import { LiveRules } from "../../src/isolate/live-rules.ts";
import benchRules from "../rules/bench.json";
import { type GeoEnv, inPlanetRegion, PlanetCounterObject, planetTally } from "./geography.ts";
import { simulatedRoundTrips, withRoundTrip } from "./round-trip.ts";
import { scanSlice } from "./scan.ts";
import { usageResponse } from "./usage.ts";
import { counted, objectTally } from "./object-tally.ts";
import { MetricsObject as Metrics } from "../../src/durable/metrics/metrics-object.ts";
import { QueueStatusObject as QueueStatus } from "../../src/durable/queue/status-object.ts";
import { RulesObject as Rules } from "../../src/durable/rules/rules-object.ts";

export * from "../../src/worker.ts";
// The same classes, counted for the cost model (bench/README.md, "Cost" and "What a deployment costs"; object-tally.ts),
// the counter object also on the simulated planet when its service has a BENCH_REGION.
export const CounterObject = counted(PlanetCounterObject, (ctx) => (ctx.id.name?.includes("@") ? "CounterObject (regional)" : "CounterObject"));
export const RulesObject = counted(Rules, () => "RulesObject");
export const MetricsObject = counted(Metrics, () => "MetricsObject");
export const QueueStatusObject = counted(QueueStatus, () => "QueueStatusObject");

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
    // Parsed only for the bench's own paths: the gateway reads the URL once itself, as it does in production.
    if (request.url.includes("/__bench/")) {
      const url = new URL(request.url);
      if (url.pathname === "/__bench/usage") return usageResponse(simulatedRoundTrips());
      if (url.pathname === "/__bench/objects") return objectTally();
      if (url.pathname === "/__bench/scan") return scanSlice(url, env);
      if (url.pathname === "/__bench/geo") return planetTally();
    }
    const gatewayApp = env.BENCH_COALESCING === "off" ? uncoalesced : app;
    if (env.BENCH_REGION) {
      const located = inPlanetRegion(request, env);
      return gatewayApp.fetch(located.request, located.env, ctx);
    }
    return gatewayApp.fetch(request, withRoundTrip(env), ctx);
  },
} satisfies ExportedHandler<Env & GeoEnv & { BENCH_RTT_MS?: string; BENCH_COALESCING?: string }>;
