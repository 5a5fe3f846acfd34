/**
 * Hot keys lease on their own (docs/precount.md, "Hot keys lease on their
 * own"): many simulated isolates (each its own EdgeRuntime, with its own
 * pre-counting table and lease holder) send one key's leasable calls, with
 * no `precount` on the rule, to one real CounterObject. Isolates and object
 * run on one driven clock (test/support/driven-time.ts).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/config.ts";
import { TARGET_CALLS_PER_S } from "../../src/durable/counters/hot-keys.ts";
import type { CounterCall } from "../../src/stored/wire-calls.ts";
import { EdgeRuntime } from "../../src/isolate/runtime.ts";
import { drivenTime } from "../support/driven-time.ts";
import { OBJECT_EPOCH, trackedCounters } from "../support/driven-object.ts";

const counters = (env as unknown as Env).COUNTERS;
type Time = ReturnType<typeof drivenTime>;

const limitCall = (key: string, limit: number): CounterCall => ({
  key,
  cost: 1,
  limits: [{ id: `hk-${limit}`, algorithm: "fixed_window", limit, windowMs: 3_600_000, burst: limit }],
});

/** Every call any simulated isolate made to the objects, by the driven second it left in. */
function callLog() {
  const bySecond = new Map<number, number>();
  return {
    count: (at: number) => bySecond.set(Math.floor(at / 1_000), (bySecond.get(Math.floor(at / 1_000)) ?? 0) + 1),
    in: (second: number) => bySecond.get(Math.floor(second / 1_000)) ?? 0,
  };
}

/** A simulated isolate: its own edge runtime (no coalescing: it spaces batches by the machine's clock), its waitUntil work. */
function isolate(time: Time, log: ReturnType<typeof callLog>) {
  const background: Promise<unknown>[] = [];
  const edge = new EdgeRuntime(trackedCounters(time, { onCall: () => log.count(time.now()) }), { coalesce: false, now: time.now });
  const defer = (p: Promise<unknown>) => void background.push(p);
  return { edge, background, go: (name: string, call: CounterCall, leasable = true) => edge.decideCalls(name, [{ call, cacheable: true, leasable }], defer) };
}

/**
 * Every isolate of `edges` sends one request of `call` every `gapMs` (staggered by `stepMs`), for `ms` of driven
 * time moved `stepMs` at a time (`gapMs` a multiple of it); returns how many were allowed.
 */
async function drive(time: Time, edges: ReturnType<typeof isolate>[], name: string, call: CounterCall, gapMs: number, ms: number, leasable = true, stepMs = 1) {
  let allowed = 0;
  const slots = gapMs / stepMs;
  for (let step = 0; step * stepMs < ms; step++) {
    const due = edges.filter((_, e) => (step + e) % slots === 0);
    const answers = await Promise.all(due.map((edge) => edge.go(name, call, leasable)));
    allowed += answers.filter(([v]) => v.allowed).length;
    await time.advance(stepMs, { stepMs });
  }
  return allowed;
}

async function untilQuiet(time: Time, edges: ReturnType<typeof isolate>[]) {
  let done = false;
  void Promise.allSettled(edges.flatMap((e) => e.background)).then(() => (done = true));
  for (let waited = 0; !done && waited < 30_000; waited += 100) await time.advance(100, { stepMs: 10 });
  expect(done).toBe(true);
}

const remainingOf = async (name: string, call: CounterCall) => (await counters.getByName(name).peek({ ...call, cost: 0 })).decisions[0].remaining;

describe("hot keys lease on their own", () => {
  it("64 isolates on one hot key: the object's calls a second fall under TARGET_CALLS_PER_S × 1.5, every hit counted", async () => {
    const time = drivenTime(OBJECT_EPOCH);
    try {
      const log = callLog();
      const edges = Array.from({ length: 64 }, () => isolate(time, log));
      const name = `hk-64-${Math.random()}`;
      const call = limitCall("hot", 1_000_000);
      // 64 isolates, a request every 20 ms each: 3,200 requests a second, about one object call each without leases.
      const allowed = await drive(time, edges, name, call, 20, 5_000, true, 5);
      expect(allowed).toBe(64 * 250);
      expect(edges.every((e) => e.edge.precount.stats.local > 0)).toBe(true);
      // Under the platform's ~1,000 a second in every second, the first included (the key is cold until its object has counted HOT_HITS_PER_S).
      for (let s = 0; s < 5; s++) expect(log.in(OBJECT_EPOCH + s * 1_000)).toBeLessThan(1_000);
      // The last two seconds: the sync period has grown to what keeps the calls near the target.
      const start = time.now() - 2_000;
      expect(log.in(start)).toBeLessThan(1.5 * TARGET_CALLS_PER_S);
      expect(log.in(start + 1_000)).toBeLessThan(1.5 * TARGET_CALLS_PER_S);
      await untilQuiet(time, edges);
      // Every hit allowed anywhere reached the object: nothing lost, nothing charged twice.
      expect(await remainingOf(name, call)).toBe(1_000_000 - allowed);
      expect(edges.reduce((n, e) => n + e.edge.precount.stats.overshoot, 0)).toBe(0);
    } finally {
      time.stop();
    }
  }, 120_000);

  it("is exact with many callers: 64 isolates offered 3 × the limit allow exactly the limit", async () => {
    const time = drivenTime(OBJECT_EPOCH);
    try {
      const log = callLog();
      const edges = Array.from({ length: 64 }, () => isolate(time, log));
      const name = `hk-exact-${Math.random()}`;
      const limit = 2_000;
      const call = limitCall("exact", limit);
      // 3,200 requests a second for 2 s: 6,400 offered.
      const allowed = await drive(time, edges, name, call, 20, 2_000, true, 5);
      expect(edges.some((e) => e.edge.precount.stats.local > 0)).toBe(true);
      expect(allowed).toBe(limit);
      await untilQuiet(time, edges);
      expect(await remainingOf(name, call)).toBe(0);
      expect(edges.reduce((n, e) => n + e.edge.precount.stats.overshoot, 0)).toBe(0);
    } finally {
      time.stop();
    }
  }, 120_000);

  it("grants a lease alongside a hot counter's decision, to an isolate whose rule has no precount", async () => {
    const time = drivenTime(OBJECT_EPOCH);
    try {
      const log = callLog();
      const [a, b] = [isolate(time, log), isolate(time, log)];
      const name = `hk-grant-${Math.random()}`;
      const call = limitCall("grant", 100_000);
      // b alone makes the counter hot at its object (300 hits in 300 ms); a has sent nothing yet.
      await drive(time, [b], name, call, 1, 300);
      expect(a.edge.precount.hints.size).toBe(0);
      // a's first call is strong and learns the hint; its next ones pre-count the counter, and a hot one leases.
      for (let i = 0; i < 20; i++) {
        await a.go(name, call);
        await time.advance(2);
      }
      expect(a.edge.precount.hints.size).toBe(1);
      expect(a.edge.precount.stats.local).toBeGreaterThan(0);
      await untilQuiet(time, [a, b]);
    } finally {
      time.stop();
    }
  }, 120_000);

  it("falls back to the object when cold: a few requests a second, or calls the plan did not mark leasable, are never decided locally", async () => {
    const time = drivenTime(OBJECT_EPOCH);
    try {
      const log = callLog();
      const edges = Array.from({ length: 4 }, () => isolate(time, log));
      const name = `hk-cold-${Math.random()}`;
      const cold = limitCall("cold", 100_000);
      // 4 isolates, one request each every 100 ms: 40 a second, under HOT_HITS_PER_S.
      const allowed = await drive(time, edges, name, cold, 100, 3_000);
      expect(allowed).toBe(120);
      expect(edges.map((e) => [e.edge.precount.stats.local, e.edge.precount.hints.size])).toEqual(edges.map(() => [0, 0]));
      // A hot key whose calls are not leasable (the decision API's): every request goes to the object.
      const hot = limitCall("hot-not-leasable", 100_000);
      const before = edges.reduce((n, e) => n + e.edge.precount.stats.local, 0);
      await drive(time, edges, name, hot, 2, 500, false);
      expect(edges.reduce((n, e) => n + e.edge.precount.stats.local, 0)).toBe(before);
      expect(edges.every((e) => e.edge.precount.hints.size === 0)).toBe(true);
      await untilQuiet(time, edges);
    } finally {
      time.stop();
    }
  }, 120_000);

  it("a hot key gone cold is decided by the object again: the hint ends with the object's first answer without it", async () => {
    const time = drivenTime(OBJECT_EPOCH);
    try {
      const log = callLog();
      const edges = Array.from({ length: 4 }, () => isolate(time, log));
      const name = `hk-cools-${Math.random()}`;
      const call = limitCall("cools", 100_000);
      await drive(time, edges, name, call, 2, 1_000);
      expect(edges.every((e) => e.edge.precount.hints.size === 1)).toBe(true);
      await untilQuiet(time, edges);
      // Two quiet seconds later the key is cold at its object: the next answer carries no hint, and the isolate drops its own.
      await time.advance(2_000, { stepMs: 100 });
      const local = edges[0].edge.precount.stats.local;
      await edges[0].go(name, call);
      await edges[0].go(name, call);
      expect(edges[0].edge.precount.hints.size).toBe(0);
      expect(edges[0].edge.precount.stats.local).toBe(local);
      await untilQuiet(time, edges);
      expect(await remainingOf(name, call)).toBe(100_000 - 4 * 500 - 2);
    } finally {
      time.stop();
    }
  }, 120_000);
});
