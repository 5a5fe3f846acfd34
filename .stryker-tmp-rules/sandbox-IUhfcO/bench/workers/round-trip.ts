/**
 * A simulated round trip between the isolate and its counter objects: the
 * `COUNTERS` binding seen through a stub that waits `BENCH_RTT_MS` before
 * each call leaves and again before its answer is read, as when the object
 * lives on another continent. Each wait is a timer of the calling request,
 * so no promise crosses requests.
 */
// @ts-nocheck

import type { Env } from "../../src/config.ts";

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const delayed = new WeakMap<Env, Env>();

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
    const counters = env.COUNTERS;
    const farCounters = {
      getByName(name: string) {
        const stub = counters.getByName(name);
        return new Proxy(stub, {
          get(target, property) {
            const member = Reflect.get(target, property);
            if (typeof member !== "function") return member;
            return async (...args: unknown[]) => {
              await sleep(oneWayMs);
              // Called on the stub itself: an RPC method has no `apply` of its own (it would be taken for a remote method).
              const answer = await (target as unknown as Record<PropertyKey, (...a: unknown[]) => Promise<unknown>>)[property](...args);
              await sleep(oneWayMs);
              return answer;
            };
          },
        });
      },
    } as unknown as Env["COUNTERS"];
    far = { ...env, COUNTERS: farCounters };
    delayed.set(env, far);
  }
  return far;
}
