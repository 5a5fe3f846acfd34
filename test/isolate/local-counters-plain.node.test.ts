/**
 * The isolate's own counters under a key flood (src/isolate/local-counters.ts,
 * docs/reliability.md, "Failure mode"): FAILURE_MODE=local allows a key at
 * most its limit per isolate and window, whatever other keys pass through
 * the isolate meanwhile. Pure code on an injected clock: no object is asked.
 */
import { describe, expect, it } from "vitest";
import type { CounterCall } from "../../src/stored/wire-calls.ts";
import { LOCAL_COUNTER_KEYS, LocalCounters } from "../../src/isolate/local-counters.ts";
import { LocalTraces } from "../../src/isolate/local-traces.ts";

const HOUR = 3_600_000;
const T0 = 4_102_444_800_000;
const perIp = (ip: string): CounterCall => ({
  key: `["api",["remote_address","${ip}"]]`,
  cost: 1,
  limits: [{ id: "fw:5:3600000", algorithm: "fixed_window", limit: 5, windowMs: HOUR, burst: 5 }],
});
const perHeader = (value: string): CounterCall => ({
  key: `["api",["x-key","${value}"]]`,
  cost: 1,
  limits: [{ id: "sw:100:3600000", algorithm: "sliding_window_counter", limit: 100, windowMs: HOUR, burst: 100 }],
});

/** How many of `n` hits of `call`, one a second from `at`, `local` allows. */
function allowedOf(local: LocalCounters, call: CounterCall, at: number, n: number): number {
  let allowed = 0;
  for (let i = 0; i < n; i++) if (local.decide("api/shard/1", call, at + i * 1_000).allowed) allowed++;
  return allowed;
}

/** `n` other keys decided once each from `at` (a flood through the same isolate). */
function flood(local: LocalCounters, n: number, at: number, tag: string): void {
  for (let i = 0; i < n; i++) local.decide("api/shard/2", perHeader(`${tag}-${i}`), at);
}

describe("local counters under a key flood", () => {
  // Break tried: only allowed calls refreshing a counter (step's keep on allowed only): 5 more allowed after the flood, not 0.
  it("a refused key is not the first forgotten: per-IP 5/hour allows 5 in the hour though 10,001 keys passed through", () => {
    const local = new LocalCounters();
    const ip = perIp("203.0.113.77");
    expect(allowedOf(local, ip, T0, 6)).toBe(5);
    flood(local, LOCAL_COUNTER_KEYS - 1, T0 + 10_000, "a");
    expect(allowedOf(local, ip, T0 + 20_000, 1)).toBe(0);
    flood(local, LOCAL_COUNTER_KEYS + 1, T0 + 30_000, "b");
    expect(allowedOf(local, ip, T0 + 40_000, 8)).toBe(0);
    expect(local.size).toBe(LOCAL_COUNTER_KEYS);
  });

  // Break tried: keep() leaving no trace of a forgotten counter (traces.leave never called): 5 more after the flood, not 1 (and 5, not 0, above).
  it("a key pushed out while it counts starts again from its trace: 4 then a flood then 1 more, not 5", () => {
    const local = new LocalCounters();
    const ip = perIp("203.0.113.78");
    expect(allowedOf(local, ip, T0, 4)).toBe(4);
    flood(local, 3 * LOCAL_COUNTER_KEYS, T0 + 10_000, "c");
    expect(allowedOf(local, ip, T0 + 60_000, 10)).toBe(1);
    // In the next hour (the fixed window's), the key's limit again.
    expect(allowedOf(local, ip, T0 + HOUR + 60_000, 10)).toBe(5);
  });

  // Break tried: LocalTraces.share ignoring `until` (a trace never ends): 0.8, not 0, past its end.
  it("a trace ends when the forgotten hits stop counting, and a key never seen has none", () => {
    const traces = new LocalTraces(7);
    traces.leave("k", T0 + 1_000, 0.8, T0);
    expect([traces.share("k", T0, false), traces.share("other", T0, false)]).toEqual([0.8, 0]);
    expect(traces.share("k", T0 + 1_000, false)).toBe(0);
    traces.leave("k", T0 + 2_000, 0.5, T0 + 1_000);
    traces.leave("k", T0 + 1_500, 0.9, T0 + 1_000);
    expect(traces.share("k", T0 + 1_800, true)).toBe(0.9);
    expect(traces.share("k", T0 + 1_800, false)).toBe(0);
  });

  it("keeps its bound in memory: LOCAL_COUNTER_KEYS counters at most, whatever the flood", () => {
    const local = new LocalCounters(100);
    flood(local, 5_000, T0, "d");
    expect(local.size).toBe(100);
  });
});
