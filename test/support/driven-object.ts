/**
 * Counter objects on a test's driven clock (docs/testing.md): workerd only,
 * apart from driven-time.ts so that plain tests can drive time in Node.
 */
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import type { Env } from "../../src/config.ts";
import type { CounterObject } from "../../src/durable/counters/counter-object.ts";
import { counterStub, homeOf } from "../../src/durable/counters/regions.ts";
import type { CounterCall } from "../../src/stored/wire-calls.ts";
import { fromWire, toWire } from "../../src/stored/wire.ts";
import type { drivenTime } from "./driven-time.ts";

type DrivenTime = ReturnType<typeof drivenTime>;

/**
 * A start for a driven clock that counter objects share: alarms they set on
 * it lie decades ahead of the machine's clock, so none fires on its own
 * during a test (a test that wants one runs it with `runDurableObjectAlarm`).
 */
export const OBJECT_EPOCH = 4_102_444_800_000;

/**
 * Put a counter object on the test's clock: from now on it decides, leases
 * and checkpoints at `now()` (docs: one clock per test). A restarted object
 * is back on its own clock until this is called again.
 *
 * @example
 * const time = drivenTime(); await driveObject(counters.getByName(name), time.now);
 */
export async function driveObject(stub: DurableObjectStub<CounterObject>, now: () => number): Promise<void> {
  await runInDurableObject(stub, (object: CounterObject) => {
    object.clock = now;
  });
}

/**
 * The counters namespace with every object it hands out put on `now` before
 * its first call: for code that finds its objects itself (the gateway, the
 * decision API), so that a test need not know their names. Pass it as the
 * `COUNTERS` binding, with the isolate on the same clock. `withHomes`: the
 * home of a regional copy too (the gateway addresses only the copy, which
 * calls its home itself); `seen` is told every name handed out.
 *
 * @example
 * const clock = { at: OBJECT_EPOCH }; const call = gateway(rules, { COUNTERS: drivenCounters(env.COUNTERS, () => clock.at) }, { now: () => clock.at });
 */
export function drivenCounters(
  counters: DurableObjectNamespace<CounterObject>,
  now: () => number,
  { withHomes = false, seen }: { withHomes?: boolean; seen?: (name: string) => void } = {},
): DurableObjectNamespace<CounterObject> {
  const onClock = new Map<string, Promise<void>>();
  const drive = (name: string, stub: DurableObjectStub<CounterObject>) => {
    let driven = onClock.get(name);
    if (driven === undefined) onClock.set(name, (driven = driveObject(stub, now)));
    return driven;
  };
  const getByName = (name: string, options?: DurableObjectNamespaceGetDurableObjectOptions) => {
    seen?.(name);
    const stub = counters.getByName(name, options);
    const home = homeOf(name);
    const ready = withHomes && home !== name ? Promise.all([drive(name, stub), drive(home, counterStub(counters, home))]) : drive(name, stub);
    return new Proxy(stub, {
      get(target, prop) {
        const value = Reflect.get(target, prop);
        if (typeof value !== "function" || typeof prop === "symbol" || prop === "then") return value;
        // An RPC method is called on its stub (its own `apply` would be a remote call too).
        return (...args: unknown[]) => ready.then(() => (target as unknown as Record<string, (...a: unknown[]) => unknown>)[prop](...args));
      },
    });
  };
  return new Proxy(counters, {
    get(target, prop) {
      if (prop === "getByName") return getByName;
      const value = Reflect.get(target, prop);
      return typeof value === "function" ? (...args: unknown[]) => Reflect.apply(value, target, args) : value;
    },
  });
}

/**
 * The counters namespace as a simulated isolate on driven time sees it: each
 * call the edge sends (one JSON text, src/stored/wire.ts) is tracked by
 * `time`, so `advance` waits for its answer, and each object is put on the
 * test's clock before its first call (leases end on one clock on both
 * sides; `drive: false` where the test put them there itself). `onCall` is
 * told of every call, by the object's name.
 *
 * @example
 * const time = drivenTime(OBJECT_EPOCH); const edge = new EdgeRuntime(trackedCounters(time), { coalesce: false, now: time.now });
 */
export function trackedCounters(time: DrivenTime, { drive = true, onCall }: { drive?: boolean; onCall?: (name: string) => void } = {}): Env["COUNTERS"] {
  const counters = (env as unknown as Env).COUNTERS;
  const onClock = new Set<string>();
  const tracked = time.track(async (name, calls) => {
    if (drive && !onClock.has(name)) {
      onClock.add(name);
      await driveObject(counters.getByName(name), time.now);
    }
    onCall?.(name);
    return counters.getByName(name).decide(calls);
  });
  return {
    getByName: (name: string) => ({ decideText: async (text: string) => toWire(await tracked(name, fromWire<CounterCall[]>(text))) }),
    // The shard key's default is derived from the namespace's ids.
    idFromName: (name: string) => counters.idFromName(name),
  } as unknown as Env["COUNTERS"];
}
