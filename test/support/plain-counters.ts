/**
 * Counter objects on plain data, for tests of the isolate side that must
 * also run in Node (mutation testing, docs/testing.md): the object's own
 * core (src/durable/counters/counter-core.ts: the order in which it applies
 * penalties, slots, leases, windows and hot keys) over windows, slots and
 * penalty blocks kept in memory, without its storage, alarms or RPC.
 * `restart()` drops every object's leases (and hot-key meters) and keeps its
 * counts, as a restarted object does. The same scenarios through a real
 * object run in workerd (test/isolate/precount.slow.test.ts).
 */
import { getAlgorithm } from "../../src/algorithms/index.ts";
import type { PenaltyState } from "../../src/algorithms/penalty.ts";
import type { Env } from "../../src/config.ts";
import { CounterCore, type CorePorts, type CounterWindows } from "../../src/durable/counters/counter-core.ts";
import type { CounterCall, LimitCall, SendBatch } from "../../src/stored/wire-calls.ts";
import { SlotBook } from "../../src/durable/counters/slots.ts";
import { fromWire, toWire } from "../../src/stored/wire.ts";
import { drivenTime } from "./driven-time.ts";

/** Window states in a Map: what an object's cache and store keep, without either. */
function memoryWindows(states: Map<string, unknown>): CounterWindows {
  return {
    read: (id) => states.get(id),
    write: (id: string, limit: LimitCall, state: unknown) => {
      states.set(id, state);
      return getAlgorithm(limit.algorithm).idleAt(state, limit);
    },
  };
}

/** Penalty blocks in a Map (the object's PenaltyBook writes them through to SQLite). */
function memoryPenalties() {
  const blocks = new Map<string, PenaltyState>();
  return {
    read: (id: string) => blocks.get(id),
    write: (id: string, state: PenaltyState | undefined) => void (state === undefined ? blocks.delete(id) : blocks.set(id, state)),
  };
}

/**
 * One plain counter object: the real core over memory. `states` holds its
 * windows by storage id; `restart()` gives it a new core (leases and hot-key
 * meters lost) over the same windows, slots and blocks, as a restart does.
 *
 * @example
 * const object = plainObject();
 * object.core.decide([{ key: "k", cost: 1, limits }], now);
 */
export function plainObject(ports: Partial<CorePorts> = {}) {
  const states = new Map<string, unknown>();
  const kept: CorePorts = { windows: memoryWindows(states), slots: new SlotBook(), penalties: memoryPenalties(), ...ports };
  const object = { states, core: new CounterCore(kept), restart: () => void (object.core = new CounterCore(kept)) };
  return object;
}

/**
 * A transport to plain counter objects (one core per object name) on the clock `now`.
 *
 * @example
 * const send = plainCounters(() => clock);
 * const [verdict] = await send("obj", [{ key: "k", cost: 1, limits }]);
 */
export function plainCounters(now: () => number): SendBatch & { restart(): void } {
  const objects = new Map<string, ReturnType<typeof plainObject>>();
  const send: SendBatch = async (name, calls) => {
    // An answer comes back later than it was asked, as over RPC.
    await Promise.resolve();
    let object = objects.get(name);
    if (object === undefined) objects.set(name, (object = plainObject()));
    return object.core.decide(calls, now());
  };
  // A restart keeps the counts (checkpointed) and loses the leases, which live in the object's memory.
  const restart = () => {
    for (const object of objects.values()) object.restart();
  };
  return Object.assign(send, { restart });
}

/**
 * Run `body` on a driven clock (test/support/driven-time.ts) with plain
 * counter objects on it; real timers are back afterwards, whatever happens.
 *
 * @example
 * await withPlainCounters(async (time, send) => {
 *   const table = new PrecountTable(time.track(send), time.now);
 *   await time.advance(50);
 * });
 */
export async function withPlainCounters(body: (time: ReturnType<typeof drivenTime>, send: ReturnType<typeof plainCounters>) => Promise<void>): Promise<void> {
  const time = drivenTime();
  try {
    await body(time, plainCounters(time.now));
  } finally {
    time.stop();
  }
}

/**
 * A COUNTERS binding over `plainCounters`: what `EdgeRuntime` (and so the
 * decision engine) takes, for Node tests of the limiter. `calls` counts the
 * object calls made through it.
 *
 * @example
 * const counters = plainNamespace(() => clock);
 * const edge = new EdgeRuntime(counters.binding, { now: () => clock });
 */
export function plainNamespace(now: () => number) {
  const send = plainCounters(now);
  let calls = 0;
  const binding = {
    getByName: (name: string) => ({
      decide: (batch: readonly CounterCall[]) => {
        calls += 1;
        return send(name, batch);
      },
      // What the edge calls: the batch as one JSON text (src/stored/wire.ts).
      decideText: async (text: string) => {
        calls += 1;
        return toWire(await send(name, fromWire<CounterCall[]>(text)));
      },
    }),
    // The shard key's default is derived from an id the namespace gives a fixed name.
    idFromName: (name: string) => ({ toString: () => `plain-id:${name}` }),
  } as unknown as Env["COUNTERS"];
  return { binding, send, calls: () => calls };
}
