/**
 * The simulated planet inside the bench build (bench/README.md,
 * "Geography"). A floodgate service with `BENCH_REGION` (A, B or C) is an
 * isolate of that region: each request is rebuilt with the region's `cf`
 * (with `BENCH_REGION=cf`, every request's own `cf.colo` names its region:
 * the bench scenarios' production shape, bench/README.md, "Method"),
 * and every call to a counter object waits the planet's one-way delay
 * between the region and the object's (bench/workers/planet.ts) before it
 * leaves and before its answer is read. Counter objects do the same for
 * the calls they make themselves, from their own region. Every call is
 * tallied by caller (isolate or object), caller region, object region and
 * kind (home or regional), read at `GET /__bench/geo`.
 */
import type { Env } from "../../src/config.ts";
import { isHomeObject, isPlanetRegion, objectRegion, oneWayMs, PLANET, PLANET_REGIONS, type PlanetRegion } from "./planet.ts";
import { delayedCounters } from "./round-trip.ts";
import { CountedCounterObject } from "./usage.ts";

/** Bench-only variable: the simulated region of a service (its isolate and, for the service that declares them, its objects' env). */
export interface GeoEnv {
  BENCH_REGION?: string;
}

/** Calls per `caller>from:to:kind`, e.g. `isolate:C>A:home`. */
const calls: Record<string, number> = {};
/** Per the same key: how many calls' simulated distance really took each whole ms, both ways (timers fire late). */
const answered: Record<string, Record<number, number>> = {};
/** Objects started with no name in `ctx.id` (placed in A, with a note in the report). */
const unnamed = { objects: 0 };

/** `counters` as seen from `from`: each object at the planet's distance, each call tallied. */
function fromRegion(caller: "isolate" | "object", from: PlanetRegion, counters: Env["COUNTERS"]): Env["COUNTERS"] {
  const keyOf = (name: string | undefined) => `${caller}:${from}>${objectRegion(name)}:${isHomeObject(name) ? "home" : "regional"}`;
  return delayedCounters(
    counters,
    (name) => oneWayMs(from, objectRegion(name)),
    (name) => {
      const key = keyOf(name);
      calls[key] = (calls[key] ?? 0) + 1;
    },
    (name, waitedMs) => {
      const byMs = (answered[keyOf(name)] ??= {});
      byMs[waitedMs] = (byMs[waitedMs] ?? 0) + 1;
    },
  );
}

/**
 * The request and env a service of region `BENCH_REGION` decides with:
 * the request carrying the region's `cf`, the env's counter objects at the
 * planet's distances. Without the variable, both unchanged. The same `env`
 * always gives the same env, so the isolate's context is made once.
 *
 * @example
 * const { request: located, env: far } = inPlanetRegion(request, env);
 * return app.fetch(located, far, ctx);
 */
export function inPlanetRegion<E extends Env & GeoEnv>(request: Request, env: E): { request: Request; env: E } {
  const region = env.BENCH_REGION;
  if (region === undefined || region === "") return { request, env };
  if (region === FROM_CF) {
    // The request's own `cf` (the bench's load sets it per request: bench/lib/load.lua) names the region; a colo the
    // planet does not have, or none, is the direct path.
    const colo = (request as { cf?: { colo?: unknown } }).cf?.colo;
    const from = PLANET_REGIONS.find((r) => PLANET[r].cf.colo === colo);
    return from === undefined ? { request, env } : { request, env: farEnv(env, from) };
  }
  if (!isPlanetRegion(region)) throw new Error(`BENCH_REGION must be A, B, C or ${FROM_CF}, not ${JSON.stringify(region)}`);
  return { request: new Request(request, { cf: { ...PLANET[region].cf } }), env: farEnv(env, region) };
}

/** `BENCH_REGION` of a service whose requests come from every region: each request's `cf.colo` says which. */
export const FROM_CF = "cf";

const farEnvs = new WeakMap<Env, Map<PlanetRegion, Env>>();

/** `env` as seen from `region` (made once per env and region, so the isolate's context is made once). */
function farEnv<E extends Env>(env: E, region: PlanetRegion): E {
  let byRegion = farEnvs.get(env);
  if (byRegion === undefined) farEnvs.set(env, (byRegion = new Map()));
  let far = byRegion.get(region);
  if (far === undefined) byRegion.set(region, (far = { ...env, COUNTERS: fromRegion("isolate", region, env.COUNTERS) }));
  return far as E;
}

/**
 * The counter object of the bench build (counted, as CountedCounterObject),
 * whose own calls to counter objects (a regional copy asking its home
 * object, `counterStub(this.env.COUNTERS, homeName)`) wait the planet's
 * delay from its region, read from its name (`ctx.id.name`, which workerd
 * gives an object addressed by name, as every floodgate caller does; an
 * object without one counts as in A and is tallied in `unnamedObjects`).
 */
export class PlanetCounterObject extends CountedCounterObject {
  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, objectEnv(ctx, env as Env & GeoEnv));
  }
}

function objectEnv(ctx: DurableObjectState, env: Env & GeoEnv): Env {
  if (!isPlanetRegion(env.BENCH_REGION) && env.BENCH_REGION !== FROM_CF) return env;
  const name = ctx.id.name;
  if (name === undefined) unnamed.objects += 1;
  return { ...env, COUNTERS: fromRegion("object", objectRegion(name), env.COUNTERS) };
}

/**
 * This isolate's tally as JSON: `calls` by `caller:from>to:kind`, `answered`
 * (calls by realized round-trip ms) by the same key, and `unnamedObjects`.
 *
 * @example
 * if (url.pathname === "/__bench/geo") return planetTally();
 */
export const planetTally = () => Response.json({ calls, answered, unnamedObjects: unnamed.objects });
