/**
 * Concurrency slots in the real CounterObject and its storage
 * (docs/concurrency.md): leases run out, renewals extend them, releases
 * free them, and a restarted object still counts them.
 */
import { env } from "cloudflare:workers";
import { evictAllDurableObjects } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/config.ts";
import type { CounterCall, LimitCall, SlotLease } from "../../src/stored/wire-calls.ts";
import { driveObject, OBJECT_EPOCH } from "../support/driven-object.ts";

const counters = (env as unknown as Env).COUNTERS;
const slots = (n: number): LimitCall => ({ id: "concurrency", algorithm: "fixed_window", limit: n, windowMs: 1000, burst: n, concurrency: true });
const hour: LimitCall = { id: "fw:2:3600000:2", algorithm: "fixed_window", limit: 2, windowMs: 3_600_000, burst: 2 };
let objects = 0;
/** A fresh object on a clock the test moves (`wait`): slot leases end on it, not on the machine's. */
function counter(limits: LimitCall[]) {
  objects += 1;
  const name = `slots-${Date.now()}-${objects}`;
  const stub = counters.getByName(name);
  let now = OBJECT_EPOCH;
  let onClock: Promise<void> | undefined;
  const send = async (call: { kind?: "release" | "renew"; cost: number; slot?: SlotLease }) => {
    await (onClock ??= driveObject(stub, () => now));
    return (await stub.decide([{ key: name, limits, ...call } as CounterCall]))[0];
  };
  const take = (holder: string, leaseMs = 60_000) => send({ cost: 1, slot: { holder, leaseMs } });
  const settle = (kind: "release" | "renew", holder: string, leaseMs = 60_000) => send({ kind, cost: 0, slot: { holder, leaseMs } });
  const wait = (ms: number) => void (now += ms);
  return { take, settle, peek: () => send({ cost: 0 }), wait, restarted: () => (onClock = undefined) };
}

describe("concurrency slots in the counter object", () => {
  it("gives out N slots, refuses the next with a one-second retry, and frees a slot on release", async () => {
    const { take, settle } = counter([slots(2)]);
    expect((await take("a")).decisions[0]).toMatchObject({ allowed: true, remaining: 1 });
    expect((await take("b")).decisions[0]).toMatchObject({ allowed: true, remaining: 0 });
    expect((await take("c")).decisions[0]).toMatchObject({ allowed: false, remaining: 0, retryAfterMs: 1000 });
    // Asking again for a slot it holds takes no second one.
    expect((await take("a")).allowed).toBe(true);
    await settle("release", "a");
    // Releasing what one does not hold changes nothing.
    await settle("release", "a");
    await settle("release", "nobody");
    expect((await take("c")).decisions[0]).toMatchObject({ allowed: true, remaining: 0 });
    expect((await take("d")).allowed).toBe(false);
  });

  it("frees an orphaned slot when its lease runs out", async () => {
    const { take, wait } = counter([slots(1)]);
    expect((await take("vanished", 300)).allowed).toBe(true);
    wait(299);
    expect((await take("next", 300)).allowed).toBe(false);
    wait(1);
    expect((await take("next", 300)).allowed).toBe(true);
  });

  it("keeps a renewed slot past its first lease, and refuses to renew a slot already lost", async () => {
    const { take, settle, wait } = counter([slots(1)]);
    expect((await take("long", 1000)).allowed).toBe(true);
    wait(600);
    expect((await settle("renew", "long", 1000)).allowed).toBe(true);
    wait(999);
    expect((await take("other", 1000)).allowed).toBe(false);
    wait(1);
    // The renewed lease ran out too: the slot went to another, and the old holder cannot renew it back.
    expect((await take("other", 60_000)).allowed).toBe(true);
    expect((await settle("renew", "long", 1000)).allowed).toBe(false);
    expect((await take("long")).allowed).toBe(false);
  });

  it("still counts slots after the object restarts", async () => {
    const { take, peek, restarted } = counter([slots(1)]);
    expect((await take("held")).allowed).toBe(true);
    await evictAllDurableObjects();
    restarted();
    expect((await peek()).decisions[0]).toMatchObject({ allowed: true, remaining: 0 });
    expect((await take("late")).allowed).toBe(false);
  });

  it("decides slots and rate windows of one call together: nothing is taken when either refuses", async () => {
    const { take, settle, peek } = counter([slots(1), hour]);
    expect((await take("a")).allowed).toBe(true);
    const refused = await take("b");
    expect(refused.allowed).toBe(false);
    // The hour window would have allowed: it reports its count untouched (one hit spent, one left).
    expect(refused.decisions.map((d) => [d.allowed, d.remaining])).toEqual([
      [false, 0],
      [true, 1],
    ]);
    await settle("release", "a");
    expect((await take("b")).allowed).toBe(true);
    await settle("release", "b");
    // The hour is spent, so no slot is taken either.
    expect((await take("c")).allowed).toBe(false);
    expect((await peek()).decisions.map((d) => d.remaining)).toEqual([1, 0]);
  });

  it("only reads slots for a call without a holder", async () => {
    const { take, peek } = counter([slots(1)]);
    for (let i = 0; i < 3; i++) expect((await peek()).decisions[0]).toMatchObject({ allowed: true, remaining: 1 });
    expect((await take("a")).allowed).toBe(true);
  });
});
