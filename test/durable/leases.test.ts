/**
 * Leases in a real CounterObject (docs, "Edge pre-counting"): quota set
 * aside for pre-counting isolates counts as taken for every other decision,
 * is charged when the isolate reports it spent, comes back when it is given
 * back, and is charged once, whole, when its lease expires unrenewed.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/config.ts";
import { driveObject, OBJECT_EPOCH } from "../support/driven-object.ts";
import { perHour } from "../support/limits.ts";
import type { AbsorbCall, CounterCall, LimitCall } from "../../src/stored/wire-calls.ts";

const counters = (env as unknown as Env).COUNTERS;
let n = 0;
const fresh = (name: string) => `lease-test/${name}/${++n}/${Date.now()}`;
const sync = (key: string, limits: LimitCall[], holder: string, spent: number, want: number, extra: { release?: number; ttlMs?: number } = {}): AbsorbCall => ({
  key,
  limits,
  cost: spent,
  kind: "absorb",
  lease: { holder, want, release: extra.release ?? 0, ttlMs: extra.ttlMs ?? 60_000 },
});
const hit = (key: string, limits: LimitCall[], cost = 1): CounterCall => ({ key, limits, cost });

describe("CounterObject leases", () => {
  it("counts leased quota as taken for everyone else, and gives it back when released", async () => {
    const key = fresh("taken");
    const limits = [perHour(10)];
    const stub = counters.getByName(key);
    const [lease] = await stub.decide([sync(key, limits, "a", 0, 6)]);
    expect(lease.reserved).toBe(6);
    // The counter as charged: nothing yet.
    expect(lease.decisions[0].remaining).toBe(10);
    const strong = await stub.decide([hit(key, limits, 4), hit(key, limits, 1)]);
    expect(strong.map((v) => v.allowed)).toEqual([true, false]);
    // Refused only because of the lease: provisional, never a certain block, retry by the lease's expiry.
    expect(strong[1].provisional).toBe(true);
    expect(strong[1].decisions[0].retryAfterMs).toBeGreaterThan(0);
    expect(strong[1].decisions[0].retryAfterMs).toBeLessThanOrEqual(60_000);
    // The holder spent 2 and gives the other 4 back: they are free again, and only the 2 are charged.
    const [back] = await stub.decide([sync(key, limits, "a", 2, 0, { release: 4 })]);
    expect(back).toMatchObject({ accepted: 2, reserved: 0 });
    expect(back.decisions[0].remaining).toBe(10 - 4 - 2);
    const [after] = await stub.decide([hit(key, limits, 4)]);
    expect(after.allowed).toBe(true);
    expect(after.provisional).toBeUndefined();
  });

  it("a refusal the limit itself makes stays certain, leases or not", async () => {
    const key = fresh("certain");
    const limits = [perHour(5)];
    const stub = counters.getByName(key);
    await stub.decide([sync(key, limits, "a", 0, 2)]);
    const [over] = await stub.decide([hit(key, limits, 6)]);
    expect(over.allowed).toBe(false);
    expect(over.provisional).toBeUndefined();
  });

  it("leases at most a fair share of what is free to each new holder, never more than fits", async () => {
    const key = fresh("share");
    const limits = [perHour(100)];
    const stub = counters.getByName(key);
    const [a, b, c] = await stub.decide([sync(key, limits, "a", 0, 1_000), sync(key, limits, "b", 0, 1_000), sync(key, limits, "c", 0, 1_000)]);
    // 100 free and no holder: a gets it all, as asked (alone, it is the only one spending).
    expect(a.reserved).toBe(100);
    expect([b.reserved, c.reserved]).toEqual([0, 0]);
    // After a gives back half, b gets half of what is free (one holder besides it), c a third of the rest.
    await stub.decide([sync(key, limits, "a", 0, 50, { release: 50 })]);
    const [b2, c2] = await stub.decide([sync(key, limits, "b", 0, 1_000), sync(key, limits, "c", 0, 1_000)]);
    expect(b2.reserved).toBe(25);
    expect(c2.reserved).toBe(Math.ceil(25 / 3));
    // Whatever the order, the leases out never exceed the limit.
    expect(50 + (b2.reserved ?? 0) + (c2.reserved ?? 0)).toBeLessThanOrEqual(100);
  });

  // On a clock the test sets. Break tried: leases expiring 1 ms late (`now > lease.expiresAt` in LeaseBook.expire):
  // the decision at the lease's end did not charge it.
  it("charges an expired lease whole, once, at its time to live: a late report of the same hits is not charged again", async () => {
    const key = fresh("expiry");
    const limits = [perHour(20)];
    const stub = counters.getByName(key);
    let now = OBJECT_EPOCH;
    await driveObject(stub, () => now);
    const [lease] = await stub.decide([sync(key, limits, "gone", 0, 8, { ttlMs: 1_000 })]);
    expect(lease.reserved).toBe(8);
    // A millisecond before its end the lease is still out: a strong hit fits beside it and nothing more is charged.
    now += 999;
    const [before] = await stub.decide([hit(key, limits)]);
    expect(before.decisions[0].remaining).toBe(20 - 1);
    // At its end, the next decision on the counter finds it expired: its 8 are charged as if spent.
    now += 1;
    const [next] = await stub.decide([hit(key, limits)]);
    expect(next.allowed).toBe(true);
    expect(next.decisions[0].remaining).toBe(20 - 8 - 2);
    // The holder comes back reporting 5 spent (before its own deadline): already charged, so nothing more.
    const [late] = await stub.decide([sync(key, limits, "gone", 5, 0)]);
    expect(late.accepted).toBe(5);
    expect(late.decisions[0].remaining).toBe(20 - 8 - 2);
  });

  it("charges reported hits no lease covers only while they fit beside the leases out (the rest is overshoot)", async () => {
    const key = fresh("uncovered");
    const limits = [perHour(10)];
    const stub = counters.getByName(key);
    await stub.decide([sync(key, limits, "a", 0, 6)]);
    // An isolate this object has no lease for (the object restarted, say) reports 7 hits: 4 fit beside a's 6.
    const [report] = await stub.decide([sync(key, limits, "stranger", 7, 0)]);
    expect(report.accepted).toBe(4);
    expect(report.decisions[0].remaining).toBe(6);
  });

  for (const algorithm of ["token_bucket", "leaky_bucket", "gcra", "sliding_window_log", "sliding_window_counter", "fixed_window"] as const) {
    it(`${algorithm}: leased and strong decisions together never exceed the limit`, async () => {
      const key = fresh(`all-${algorithm}`);
      const limits = [perHour(30, algorithm)];
      const stub = counters.getByName(key);
      const [a] = await stub.decide([sync(key, limits, "a", 0, 12)]);
      const [b] = await stub.decide([sync(key, limits, "b", 0, 12)]);
      const strong = await stub.decide(Array.from({ length: 40 }, () => hit(key, limits)));
      const allowed = strong.filter((v) => v.allowed).length;
      expect((a.reserved ?? 0) + (b.reserved ?? 0) + allowed).toBe(30);
      // The holders report everything spent: all of it is charged (it was set aside), and nothing more fits.
      const reports = await stub.decide([sync(key, limits, "a", a.reserved ?? 0, 0), sync(key, limits, "b", b.reserved ?? 0, 0)]);
      expect(reports.map((r) => r.accepted)).toEqual([a.reserved, b.reserved]);
      const [last] = await stub.decide([hit(key, limits)]);
      expect(last.allowed).toBe(false);
      expect(last.provisional).toBeUndefined();
    });
  }
});
