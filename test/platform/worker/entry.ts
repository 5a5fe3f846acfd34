/**
 * The platform suite's Worker (docs/testing.md, "test:platform"): the real
 * worker, everything `src/worker.ts` exports, built by wrangler as a deploy
 * builds it, with the suite's rules (test/platform/rules.json) in place of
 * `rules.json`, and two test-only additions the platform provides no
 * handle for:
 *
 * - `PLATFORM_FAULTS` (`<share>:<kind>[+<kind>…]`, worker/faults.ts): that
 *   share of this isolate's calls to counter objects fails with the
 *   platform's errors, before the object sees it;
 * - `/__platform/*`: the faults tally of this isolate, and, on the service
 *   that declares the objects, every started object's instance and calls,
 *   and evicting them (`?match=`: those whose name holds it;
 *   worker/platform-object.ts).
 */
import type { Env } from "../../../src/config.ts";
import { isolateContexts } from "../../../src/admission/isolate-context.ts";
import { createApp } from "../../../src/gateway/app.ts";
import { compileOnce } from "../../../src/rules/index.ts";
import { LiveRules } from "../../../src/isolate/live-rules.ts";
import platformRules from "../rules.json";
import { type FaultTally, faultPlan, faultyCounters } from "./faults.ts";
import { type PlatformCounterObject, startedObjects } from "./platform-object.ts";

export * from "../../../src/worker.ts";
export { PlatformCounterObject as CounterObject } from "./platform-object.ts";

type PlatformEnv = Env & { PLATFORM_FAULTS?: string };
type PlatformStub = Pick<PlatformCounterObject, "platformState" | "platformAbort">;

const app = createApp(isolateContexts(new LiveRules(compileOnce(platformRules, "test/platform/rules.json"))));
const tally: FaultTally = { calls: 0, failed: { overloaded: 0, retryable: 0, unreachable: 0 } };
const faulty = new WeakMap<Env, Env>();

/** `env` with its counters failing as PLATFORM_FAULTS says; the same object for the same `env`, so the isolate's context is made once. */
function withFaults(env: PlatformEnv): Env {
  const plan = faultPlan(env.PLATFORM_FAULTS);
  if (plan === undefined) return env;
  let made = faulty.get(env);
  if (made === undefined) faulty.set(env, (made = { ...env, COUNTERS: faultyCounters(env.COUNTERS, plan, tally) }));
  return made;
}

const stubOf = (env: Env, name: string) => env.COUNTERS.getByName(name) as unknown as PlatformStub;

/** Every started object's instance and calls; or, with `evict`, each one whose name holds `match` ended (its error is the eviction's). */
async function objects(env: Env, evict: boolean, match: string): Promise<Response> {
  const names = startedObjects().filter((name) => name.includes(match));
  const answers = await Promise.all(
    names.map(async (name) => {
      if (!evict) return [name, await stubOf(env, name).platformState()];
      try {
        await stubOf(env, name).platformAbort();
      } catch {
        // The abort fails the call that asked for it.
      }
      return [name, "evicted"];
    }),
  );
  return Response.json(Object.fromEntries(answers));
}

export default {
  fetch(request, env, ctx) {
    if (request.url.includes("/__platform/")) {
      const { pathname, searchParams } = new URL(request.url);
      const match = searchParams.get("match") ?? "";
      if (pathname === "/__platform/faults") return Response.json(tally);
      if (pathname === "/__platform/objects") return objects(env, false, match);
      if (pathname === "/__platform/evict" && request.method === "POST") return objects(env, true, match);
    }
    return app.fetch(request, withFaults(env), ctx);
  },
} satisfies ExportedHandler<PlatformEnv>;
