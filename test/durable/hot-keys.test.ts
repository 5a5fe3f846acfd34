/**
 * Hot-key detection at the object (src/durable/counters/hot-keys.ts; docs/precount.md,
 * "Hot keys lease on their own"): the meter alone on a clock the test
 * passes, then a real CounterObject on a driven clock.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/config.ts";
import { HOT_HITS_PER_S, HOT_SYNC_MAX_MS, HOT_SYNC_MIN_MS, HotKeys, TARGET_CALLS_PER_HIT, TARGET_CALLS_PER_S } from "../../src/durable/counters/hot-keys.ts";
import type { CounterCall, CounterVerdict } from "../../src/stored/wire-calls.ts";
import { driveObject, OBJECT_EPOCH } from "../support/driven-object.ts";

const counters = (env as unknown as Env).COUNTERS;

const call = (key: string, extra: Partial<CounterCall> = {}): CounterCall =>
  ({ key, cost: 1, limits: [{ id: "hk-fw", algorithm: "fixed_window", limit: 1_000_000, windowMs: 3_600_000, burst: 1_000_000 }], ...extra }) as CounterCall;

/** `n` calls of `hits` each on `id`, spread evenly over one second from `from`; the last answer. */
function second(hot: HotKeys, id: string, n: number, from: number, hits = 1) {
  let hint: ReturnType<HotKeys["note"]>;
  for (let i = 0; i < n; i++) hint = hot.note(id, hits, from + Math.floor((i * 1_000) / n));
  return hint;
}

describe("hot-key meter", () => {
  it("calls a counter hot once its object is told of HOT_HITS_PER_S hits in a second, leased hits included", () => {
    const hot = new HotKeys();
    expect(second(hot, "cold", HOT_HITS_PER_S - 1, 0)).toBeUndefined();
    // Few calls carrying many hits (syncs of leased hits) are as hot as many single hits.
    expect(second(hot, "synced", 4, 0, HOT_HITS_PER_S / 4)).toEqual({ syncMs: HOT_SYNC_MIN_MS });
    expect(second(hot, "hot", HOT_HITS_PER_S, 0)).toEqual({ syncMs: HOT_SYNC_MIN_MS });
    // Still hot the next second on the last one's hits; cold once a whole second went by without them.
    // (Its period has grown: a second of one call a hit is far over TARGET_CALLS_PER_HIT.)
    expect(hot.note("hot", 1, 1_000)).toEqual({ syncMs: 8 * HOT_SYNC_MIN_MS });
    expect(hot.note("hot", 1, 3_500)).toBeUndefined();
  });

  it("doubles the sync period after a second of more than TARGET_CALLS_PER_S calls, halves it after one under a quarter of that", () => {
    const hot = new HotKeys();
    let at = 0;
    const periods: number[] = [];
    // Each call reports 100 hits: under TARGET_CALLS_PER_HIT, so the calls a second alone steer.
    for (let s = 0; s < 8; s++, at += 1_000) periods.push(second(hot, "k", TARGET_CALLS_PER_S + 1, at, 100)!.syncMs);
    expect(periods).toEqual([100, 200, 400, 800, 1_600, 3_200, HOT_SYNC_MAX_MS, HOT_SYNC_MAX_MS]);
    // Between a quarter and the whole target the period holds; below a quarter it comes back down (still hot by its hits).
    expect(second(hot, "k", TARGET_CALLS_PER_S / 2, at, 10)!.syncMs).toBe(HOT_SYNC_MAX_MS);
    expect(second(hot, "k", 10, (at += 1_000), 100)!.syncMs).toBe(HOT_SYNC_MAX_MS);
    expect(second(hot, "k", 10, (at += 1_000), 100)!.syncMs).toBe(HOT_SYNC_MAX_MS / 2);
  });

  it("steers toward TARGET_CALLS_PER_HIT too, by up to 8 × a second when far over", () => {
    const hot = new HotKeys();
    // 800 single-hit calls in a second (a counter's first hot second, every request a call): 5 × the 160 of 0.2 a hit.
    expect(second(hot, "k", 800, 0)!.syncMs).toBe(HOT_SYNC_MIN_MS);
    expect(second(hot, "k", 100, 1_000, 8)!.syncMs).toBe(8 * HOT_SYNC_MIN_MS);
    // 100 calls for 800 hits: 0.125 a hit, under the target and over a quarter of it: the period holds.
    expect(second(hot, "k", 100, 2_000, 8)!.syncMs).toBe(8 * HOT_SYNC_MIN_MS);
    expect(TARGET_CALLS_PER_HIT).toBe(0.2);
  });

  it("keeps its meters within its bytes, dropping the least recently rolled", () => {
    const hot = new HotKeys(4_096);
    for (let i = 0; i < 1_000; i++) hot.note(`junk-${i}-${"x".repeat(100)}`, 1, i);
    expect(hot.bytes).toBeLessThanOrEqual(4_096);
    expect(hot.size).toBeGreaterThan(0);
    // A key longer than the whole capacity is not metered at all.
    expect(hot.note("y".repeat(10_000), HOT_HITS_PER_S, 0)).toBeUndefined();
    expect(hot.bytes).toBeLessThanOrEqual(4_096);
  });
});

describe("hot-key hints from a real object", () => {
  async function object() {
    const name = `hk-obj-${Math.random()}`;
    const stub = counters.getByName(name);
    let clock = OBJECT_EPOCH;
    await driveObject(stub, () => clock);
    return { stub, tick: (ms: number) => (clock += ms) };
  }

  it("answers plain decisions and syncs on a hot counter with the hint, and a cold counter's without", async () => {
    const { stub, tick } = await object();
    const answers: CounterVerdict[] = [];
    // 300 hits in 300 ms on one key, 50 on another: only the first reaches HOT_HITS_PER_S.
    for (let i = 0; i < 300; i++) {
      answers.push(...((await stub.decide([call("hot"), ...(i % 6 === 0 ? [call("cold")] : [])])) as CounterVerdict[]));
      tick(1);
    }
    // Hinted from the HOT_HITS_PER_S-th hit of the hot key on, never on the cold one.
    expect(answers.filter((v) => v.hot !== undefined).length).toBe(300 - HOT_HITS_PER_S + 1);
    const [hotNow, coldNow] = (await stub.decide([call("hot"), call("cold")])) as CounterVerdict[];
    expect(hotNow.hot).toEqual({ syncMs: HOT_SYNC_MIN_MS });
    expect(coldNow.hot).toBeUndefined();
    const [synced] = (await stub.decide([{ ...call("hot"), kind: "absorb", cost: 0, lease: { holder: "h", want: 4, ttlMs: 1_000 } }])) as CounterVerdict[];
    expect(synced.hot).toEqual({ syncMs: HOT_SYNC_MIN_MS });
    expect(synced.reserved).toBe(4);
  });

  it("never hints a call only the object may decide: refundable, with a slot, strict, or a refund", async () => {
    const { stub, tick } = await object();
    for (let i = 0; i < HOT_HITS_PER_S; i++) {
      await stub.decide([call("k")]);
      tick(1);
    }
    const strict = call("k");
    const answers = (await stub.decide([
      call("k"),
      call("k", { refundable: true }),
      { ...strict, limits: [{ ...strict.limits[0], strict: true }] },
      call("k", { kind: "refund", chargedAt: OBJECT_EPOCH } as Partial<CounterCall>),
    ])) as CounterVerdict[];
    expect(answers.map((v) => v.hot !== undefined)).toEqual([true, false, false, false]);
  });
});
