/**
 * The sample's rate as the active keys grow (src/advisor/active-keys.ts,
 * docs/advisor.md "How requests are chosen: whole keys"): every key while few are
 * active, so a small deployment and a key every request shares are sampled
 * whole; thinned by the keyed hash as the count grows, never under
 * SAMPLE_KEY_RATE; a key keeps its answer while it stays active.
 */
import { describe, expect, it } from "vitest";
import { ACTIVE_KEYS_BUCKET_MS, ACTIVE_KEYS_COUNTED, ActiveKeys, SAMPLE_EVERY_KEY_UP_TO, sampleRate } from "../../src/advisor/active-keys.ts";
import { hashSampled, keyHash } from "../../src/advisor/key-sampling.ts";

const SECRET = { k0: 0x5eed0001, k1: 0x5eed0002 };
const hashOf = (value: string, domain = "api") => keyHash(domain, [{ key: "api_key", value }], SECRET);

describe("sampleRate", () => {
  // Break tried: sampleRate returning the floor whatever the count (whole-key sampling as before): 19 keys → 0.1.
  it("is 1 up to SAMPLE_EVERY_KEY_UP_TO active keys, then that many over the count, never under the floor, the floor from ACTIVE_KEYS_COUNTED on", () => {
    expect(SAMPLE_EVERY_KEY_UP_TO).toBe(100);
    expect([1, 19, 100].map((n) => sampleRate(n, 0.1))).toEqual([1, 1, 1]);
    expect(sampleRate(101, 0.1)).toBeCloseTo(100 / 101, 12);
    expect(sampleRate(400, 0.1)).toBe(0.25);
    expect([1_000, 5_000, ACTIVE_KEYS_COUNTED].map((n) => sampleRate(n, 0.1))).toEqual([0.1, 0.1, 0.1]);
    // A floor under 100 / ACTIVE_KEYS_COUNTED is reached at the count's bound.
    expect(sampleRate(ACTIVE_KEYS_COUNTED - 1, 0.001)).toBeCloseTo(100 / (ACTIVE_KEYS_COUNTED - 1), 12);
    expect(sampleRate(ACTIVE_KEYS_COUNTED, 0.001)).toBe(0.001);
    expect([sampleRate(5, 0), sampleRate(1e6, 1)]).toEqual([0, 1]);
  });
});

describe("ActiveKeys", () => {
  it("samples every key of a 19-key deployment and a key every request shares, at SAMPLE_KEY_RATE 0.1", () => {
    const keys = new ActiveKeys();
    const values = Array.from({ length: 19 }, (_, i) => `customer-${i}`);
    let now = 0;
    for (let round = 0; round < 50; round++)
      for (const value of [...values, "plan=global"]) expect(keys.sampled("api", hashOf(value), (now += 997), 0.1), value).toBe(true);
    // Whole-key sampling at 0.1 would have kept about two of them.
    expect(values.filter((v) => hashSampled(hashOf(v), 0.1)).length).toBeLessThan(6);
  });

  it("thins by the keyed hash as keys grow: every key under the floor in, some 15 % of 5,000 kept", () => {
    const keys = new ActiveKeys();
    const values = Array.from({ length: 5_000 }, (_, i) => `k${i}`);
    const kept = values.filter((v, i) => keys.sampled("api", hashOf(v), i, 0.1));
    // Every key under the floor is in, wherever and whenever it is seen: those patterns are complete in every isolate.
    for (const v of values) if (hashSampled(hashOf(v), 0.1)) expect(kept).toContain(v);
    // Expected: the first 100, then 100/k each up to 1 000 (about 230), then 10 % of 4 000: about 730 + the floor's share before.
    expect(kept.length).toBeGreaterThan(600);
    expect(kept.length).toBeLessThan(900);
  });

  // Break tried: the decision not kept (`known` ignored): keys the growing count thins lose their later requests.
  it("keeps a key's answer while it stays active, as the count grows; decides it again once it was idle two minutes", () => {
    const keys = new ActiveKeys();
    let now = 0;
    const first = Array.from({ length: 100 }, (_, i) => `early-${i}`);
    for (const v of first) expect(keys.sampled("api", hashOf(v), now, 0.1)).toBe(true);
    // 900 more keys: the rate falls to the floor; the early keys, seen again within the minute after, stay in.
    for (let i = 0; i < 900; i++) keys.sampled("api", hashOf(`late-${i}`), now, 0.1);
    now += ACTIVE_KEYS_BUCKET_MS;
    for (const v of first) expect(keys.sampled("api", hashOf(v), now, 0.1), v).toBe(true);
    // The late keys, in the previous minute's count, keep the rate at the floor; the early ones are still in.
    now += ACTIVE_KEYS_BUCKET_MS;
    for (let i = 0; i < 900; i++) keys.sampled("api", hashOf(`late-${i}`), now, 0.1);
    for (const v of first) expect(keys.sampled("api", hashOf(v), now, 0.1), v).toBe(true);
    // Two minutes idle: both minutes are over, a key is decided afresh (here by 1000 keys active: the floor).
    const idle = new ActiveKeys();
    for (let i = 0; i < 1_000; i++) idle.sampled("api", hashOf(`late-${i}`), 0, 0.1);
    const outAtFloor = first.find((v) => !hashSampled(hashOf(v), 0.1)) ?? "";
    expect(idle.sampled("api", hashOf(outAtFloor), 0, 0.1)).toBe(false);
    expect(idle.sampled("api", hashOf(outAtFloor), 3 * ACTIVE_KEYS_BUCKET_MS, 0.1)).toBe(true);
  });

  it("counts each domain apart, and a clock stepping back keeps its minutes", () => {
    const keys = new ActiveKeys();
    for (let i = 0; i < 1_000; i++) keys.sampled("busy", hashOf(`k${i}`, "busy"), 60_000, 0.1);
    expect(Array.from({ length: 19 }, (_, i) => keys.sampled("small", hashOf(`c${i}`, "small"), 60_000, 0.1)).every(Boolean)).toBe(true);
    const out = Array.from({ length: 1_000 }, (_, i) => `n${i}`).find((v) => !hashSampled(hashOf(v, "busy"), 0.1)) ?? "";
    expect(keys.sampled("busy", hashOf(out, "busy"), 0, 0.1)).toBe(false);
  });

  // Break tried: the count not bounded at ACTIVE_KEYS_COUNTED (`counted` always true): 24,000 hashes held.
  it("holds at most ACTIVE_KEYS_COUNTED key hashes per domain and minute: a scan past it is sampled at the floor", () => {
    const keys = new ActiveKeys();
    for (const minute of [0, 1])
      for (let i = 0; i < ACTIVE_KEYS_COUNTED + 2_000; i++) keys.sampled("api", hashOf(`scan-${minute}-${i}`), minute * ACTIVE_KEYS_BUCKET_MS, 0.001);
    expect(keys.held).toBe(2 * ACTIVE_KEYS_COUNTED);
    const fresh = Array.from({ length: 20_000 }, (_, i) => `fresh-${i}`);
    const kept = fresh.filter((v) => keys.sampled("api", hashOf(v), ACTIVE_KEYS_BUCKET_MS, 0.001));
    expect(kept).toEqual(fresh.filter((v) => hashSampled(hashOf(v), 0.001)));
  });

  it("samples every key at a floor of 1 and none at 0", () => {
    const keys = new ActiveKeys();
    expect(Array.from({ length: 2_000 }, (_, i) => keys.sampled("api", hashOf(`k${i}`), 0, 1)).every(Boolean)).toBe(true);
    expect(Array.from({ length: 20 }, (_, i) => keys.sampled("api", hashOf(`k${i}`), 0, 0)).some(Boolean)).toBe(false);
  });
});
