/**
 * A counter object's decisions on plain data, for tests of the isolate side
 * that must also run in Node (mutation testing, docs/testing.md): the
 * object's own lease and sync modules (src/durable/leases.ts,
 * precount-sync.ts) and the real algorithms, in the order
 * `CounterObject.decideOne` applies them, without its storage, alarms or
 * RPC. Decide and absorb calls only; `restart()` drops every object's
 * leases and keeps its counts, as a restarted object does. The same scenarios through a real
 * object run in workerd (test/edge/precount.slow.test.ts).
 */
import { getAlgorithm } from "../../src/algorithms/index.ts";
import type { Env } from "../../src/config.ts";
import { LeaseBook } from "../../src/durable/leases.ts";
import { absorb, type CounterAccess, decideBesideLeases, leasedOn } from "../../src/durable/precount-sync.ts";
import type { CounterCall, CounterVerdict, LimitCall, SendBatch } from "../../src/durable/protocol.ts";
import { fromWire, toWire } from "../../src/durable/wire.ts";

/**
 * A transport to plain counter objects (one lease book per object name) on the clock `now`.
 *
 * @example
 * const send = plainCounters(() => clock);
 * const [verdict] = await send("obj", [{ key: "k", cost: 1, limits }]);
 */
export function plainCounters(now: () => number): SendBatch & { restart(): void } {
  const states = new Map<string, unknown>();
  const books = new Map<string, LeaseBook>();
  const step = (key: string, limit: LimitCall, at: number, cost: number) =>
    getAlgorithm(limit.algorithm).decide(states.get(`${key}\u0001${limit.id}`), limit, at, cost);
  const access = (at: number): CounterAccess => ({
    fits: (call, cost) => call.limits.every((limit) => step(call.key, limit, at, cost).decision.allowed),
    take: (call, cost) => {
      for (const limit of call.limits) states.set(`${call.key}\u0001${limit.id}`, step(call.key, limit, at, cost).state);
    },
    peek: (call) => call.limits.map((limit) => step(call.key, limit, at, 0).decision),
  });

  function decideOne(call: CounterCall, leases: LeaseBook, at: number): CounterVerdict {
    if (call.kind === "absorb") return absorb(call, leases, access(at), at);
    if (call.kind !== undefined && call.kind !== "decide") throw new Error(`plainCounters: no ${call.kind} calls`);
    const counters = access(at);
    if (!leases.empty && call.cost > 0 && counters.fits(call, call.cost)) {
      const leased = leasedOn(call, leases, counters, at);
      if (leased > 0) return decideBesideLeases(call, leased, leases, counters, at);
    }
    const steps = call.limits.map((limit) => step(call.key, limit, at, call.cost));
    if (!steps.every((s) => s.decision.allowed)) {
      return { allowed: false, decisions: steps.map((s, i) => (s.decision.allowed ? step(call.key, call.limits[i], at, 0).decision : s.decision)) };
    }
    if (call.cost > 0) counters.take(call, call.cost);
    return { allowed: true, decisions: steps.map((s) => s.decision) };
  }

  const send: SendBatch = async (name, calls) => {
    // An answer comes back later than it was asked, as over RPC.
    await Promise.resolve();
    let leases = books.get(name);
    if (leases === undefined) books.set(name, (leases = new LeaseBook()));
    const at = now();
    return calls.map((call) => decideOne(call, leases, at));
  };
  // A restart keeps the counts (checkpointed) and loses the leases, which live in the object's memory.
  return Object.assign(send, { restart: () => books.clear() });
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
      // What the edge calls: the batch as one JSON text (src/durable/wire.ts).
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
