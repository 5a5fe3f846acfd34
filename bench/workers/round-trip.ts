/**
 * A simulated distance between the isolate and its counter objects: the
 * `COUNTERS` binding seen through a stub that waits before each call leaves
 * and again before its answer is read, as when the object lives on another
 * continent. `BENCH_RTT_MS` puts every object that far away
 * (bench/README.md, "Round trip"); the simulated planet gives each object
 * its own distance (bench/workers/geography.ts). Each wait is a timer of the
 * calling request, so no promise crosses requests. Timers fire late, so
 * what each call actually waited is tallied too (`simulatedRoundTrips`), for
 * the bench to set p50 against the realized round trip as well as the
 * nominal one.
 */
import type { Env } from "../../src/config.ts";

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const delayed = new WeakMap<Env, Env>();
/** Calls sent through a simulated distance, and the ms they waited for it in all (both ways, as the clock saw it). */
const tally = { simulatedCalls: 0, simulatedRoundTripMs: 0 };

/**
 * The simulated distance's tally so far, this process's; the bench reads it
 * before and after a load and takes the difference.
 *
 * @example
 * Response.json({ ...simulatedRoundTrips() }); // { simulatedCalls: 120, simulatedRoundTripMs: 6360 }
 */
export const simulatedRoundTrips = () => ({ ...tally });

/** Wait `ms`, count what the wait really took, and return that. */
async function away(ms: number): Promise<number> {
  const from = Date.now();
  await sleep(ms);
  const waited = Date.now() - from;
  tally.simulatedRoundTripMs += waited;
  return waited;
}

type Counters = Env["COUNTERS"];
type Stub = ReturnType<Counters["getByName"]>;

/**
 * `counters` with each object `oneWayMsOf(name)` away each way; `onCall`
 * hears of every call (an RPC method invoked on a stub) as it leaves, and
 * `onAnswered` of what its two waits really took once its answer is read.
 * Ids are made locally, with no wait.
 *
 * @example
 * const far = delayedCounters(env.COUNTERS, (name) => (name.endsWith("@apac") ? 100 : 5));
 * await far.getByName("api/shard/3").decide(calls); // 5 ms out, 5 ms back
 */
export function delayedCounters(
  counters: Counters,
  oneWayMsOf: (name: string | undefined) => number,
  onCall?: (name: string | undefined) => void,
  onAnswered?: (name: string | undefined, waitedMs: number) => void,
): Counters {
  const far = (stub: Stub, name: string | undefined): Stub =>
    new Proxy(stub, {
      get(target, property) {
        const member = Reflect.get(target, property);
        if (typeof member !== "function") return member;
        return async (...args: unknown[]) => {
          onCall?.(name);
          const oneWay = oneWayMsOf(name);
          const out = await away(oneWay);
          // Called on the stub itself: an RPC method has no `apply` of its own (it would be taken for a remote method).
          const answer = await (target as unknown as Record<PropertyKey, (...a: unknown[]) => Promise<unknown>>)[property](...args);
          const back = await away(oneWay);
          tally.simulatedCalls += 1;
          onAnswered?.(name, out + back);
          return answer;
        };
      },
    });
  return new Proxy(counters, {
    get(target, property) {
      if (property === "getByName")
        return (name: string, options?: DurableObjectNamespaceGetDurableObjectOptions) => far(target.getByName(name, options), name);
      if (property === "get") return (id: DurableObjectId, options?: DurableObjectNamespaceGetDurableObjectOptions) => far(target.get(id, options), id.name);
      const member = Reflect.get(target, property);
      return typeof member === "function" ? member.bind(target) : member;
    },
  });
}

/**
 * `env` with its counter objects `BENCH_RTT_MS` away each way; `env` itself
 * when the variable is unset or 0. The same `env` always gives the same
 * object, so the isolate's context is made once.
 *
 * @example
 * app.fetch(request, withRoundTrip(env), ctx);
 */
export function withRoundTrip(env: Env & { BENCH_RTT_MS?: string }): Env {
  const oneWayMs = Number(env.BENCH_RTT_MS ?? 0);
  if (!(oneWayMs > 0)) return env;
  let far = delayed.get(env);
  if (far === undefined) {
    far = { ...env, COUNTERS: delayedCounters(env.COUNTERS, () => oneWayMs) };
    delayed.set(env, far);
  }
  return far;
}
