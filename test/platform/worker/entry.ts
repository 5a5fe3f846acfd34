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
 * - `PLATFORM_WIRE` (`unversioned` or `next`, worker/wire-versions.ts):
 *   this isolate speaks the wire of an older or a newer deploy;
 * - `/__platform/*`: the faults tally of this isolate (and, by POST with
 *   `?plan=`, a new fault plan for it); a reset of this isolate (POST
 *   `/__platform/reset-isolate`: everything it kept is dropped, as when the
 *   platform starts a new isolate; requests already in flight finish on
 *   the old one, as during a deploy); and, on the service that declares
 *   the objects, every started object's instance and calls, evicting them
 *   (`?match=`: those whose name holds it; `&homes=1`: only homes, not
 *   their regional copies; each evicted one's quota lent out when it
 *   went), and the alarm faults' tally (worker/platform-object.ts).
 */
import type { Env } from "../../../src/config.ts";
import { isolateContexts } from "../../../src/admission/isolate-context.ts";
import { createApp } from "../../../src/gateway/app.ts";
import { compileOnce } from "../../../src/rules/index.ts";
import { LiveRules } from "../../../src/isolate/live-rules.ts";
import platformRules from "../rules.json";
import { type FaultPlan, type FaultTally, faultPlan, faultyCounters } from "./faults.ts";
import { homeOf } from "../../../src/durable/counters/regions.ts";
import { alarmTally, leasesOutAtAbort, type PlatformCounterObject, startedObjects } from "./platform-object.ts";
import { speaking, wireSpeech } from "./wire-versions.ts";

export * from "../../../src/worker.ts";
export { PlatformCounterObject as CounterObject } from "./platform-object.ts";

type PlatformEnv = Env & { PLATFORM_FAULTS?: string; PLATFORM_WIRE?: string };
type PlatformStub = Pick<PlatformCounterObject, "platformState" | "platformAbort">;

/** The isolate's app: made again by a reset of the isolate (everything its contexts kept is dropped with it). */
const newApp = () => createApp(isolateContexts(new LiveRules(compileOnce(platformRules, "test/platform/rules.json"))));
let app = newApp();
const tally: FaultTally = { calls: 0, failed: { overloaded: 0, retryable: 0, unreachable: 0, lost: 0, late: 0 } };
const wrapped = new WeakMap<Env, Env>();
/** The fault plan in force: PLATFORM_FAULTS until the suite sets another (null: not read yet). */
let plan: FaultPlan | undefined | null = null;

/**
 * A late call lands this long after the caller's decision timeout: while
 * the caller's request is still kept alive for it (the coalescer keeps a
 * request up to 100 ms past the timeout), as in production, where the
 * caller waits for the answer it gave up on; a call landing after that
 * would find no one to hear its answer.
 */
const LATE_PAST_TIMEOUT_MS = 60;

/**
 * `env` with its counters failing as the fault plan says and speaking the
 * wire PLATFORM_WIRE names; the same object for the same `env`, so the
 * isolate's context is made once. A service without PLATFORM_FAULTS gets
 * no fault wrapper (and takes no plan).
 */
function wrapEnv(env: PlatformEnv): Env {
  let made = wrapped.get(env);
  if (made !== undefined) return made;
  const lateMs = Number(env.DECISION_TIMEOUT_MS ?? 1000) + LATE_PAST_TIMEOUT_MS;
  if (plan === null) plan = faultPlan(env.PLATFORM_FAULTS, lateMs);
  const speech = wireSpeech(env.PLATFORM_WIRE);
  let counters = env.COUNTERS;
  if (speech !== undefined) counters = speaking(counters, speech);
  if (env.PLATFORM_FAULTS !== undefined) counters = faultyCounters(counters, () => plan ?? undefined, tally);
  made = counters === env.COUNTERS ? env : { ...env, COUNTERS: counters };
  wrapped.set(env, made);
  return made;
}

/** POST `/__platform/faults?plan=`: a new fault plan for this isolate (empty: none). */
function setPlan(env: PlatformEnv, text: string): Response {
  if (env.PLATFORM_FAULTS === undefined) return new Response("this service has no fault wrapper (set PLATFORM_FAULTS)", { status: 400 });
  plan = faultPlan(text, Number(env.DECISION_TIMEOUT_MS ?? 1000) + LATE_PAST_TIMEOUT_MS);
  return Response.json(tally);
}

const stubOf = (env: Env, name: string) => env.COUNTERS.getByName(name) as unknown as PlatformStub;

/**
 * Every started object's instance and calls; or, with `evict`, each one whose name holds `match` ended (its error
 * is the eviction's), with the quota it had lent out; `homes`: only objects that are their own home (no region).
 */
async function objects(env: Env, evict: boolean, match: string, homes = false): Promise<Response> {
  const names = startedObjects().filter((name) => name.includes(match) && (!homes || homeOf(name) === name));
  const answers = await Promise.all(
    names.map(async (name) => {
      if (!evict) return [name, await stubOf(env, name).platformState()];
      try {
        await stubOf(env, name).platformAbort();
      } catch {
        // The abort fails the call that asked for it.
      }
      return [name, { evicted: true, leasesOut: leasesOutAtAbort.get(name) ?? 0 }];
    }),
  );
  return Response.json(Object.fromEntries(answers));
}

export default {
  fetch(request, env, ctx) {
    if (request.url.includes("/__platform/")) {
      const { pathname, searchParams } = new URL(request.url);
      const match = searchParams.get("match") ?? "";
      if (pathname === "/__platform/faults") return request.method === "POST" ? setPlan(env, searchParams.get("plan") ?? "") : Response.json(tally);
      if (pathname === "/__platform/alarms") return Response.json(alarmTally);
      if (pathname === "/__platform/reset-isolate" && request.method === "POST") {
        app = newApp();
        return Response.json({ reset: true });
      }
      if (pathname === "/__platform/objects") return objects(env, false, match);
      if (pathname === "/__platform/evict" && request.method === "POST") return objects(env, true, match, searchParams.get("homes") === "1");
    }
    return app.fetch(request, wrapEnv(env), ctx);
  },
} satisfies ExportedHandler<PlatformEnv>;
