/**
 * EdgeRuntime.localVerdicts checks every call before it decides any, so it
 * must decide with the very clock reading it checked with: a soak run once
 * hit a 500 when a view aged past its limit between the two.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { CounterCall } from "../../src/stored/wire-calls.ts";
import { EdgeRuntime } from "../../src/isolate/runtime.ts";
import type { Env } from "../../src/config.ts";

const SYNC_MS = 50;

describe("deciding a request wholly in the isolate", () => {
  it("decides with the clock reading it checked with, even when the clock moves on between calls", async () => {
    let t = 1_000_000;
    let stepping = false;
    // While stepping, every reading is 30 ms later than the one before.
    const now = () => (stepping ? (t += 30) : t);
    const edge = new EdgeRuntime((env as unknown as Env).COUNTERS, { now });
    const call: CounterCall = {
      key: `lv-${Math.random()}`,
      cost: 1,
      limits: [{ id: "lv-fw", algorithm: "fixed_window", limit: 1_000, windowMs: 3_600_000, burst: 1_000 }],
    };
    const background: Promise<unknown>[] = [];
    const defer = (p: Promise<unknown>) => void background.push(p);
    // A strong decision makes the entry; a second, on the now hot counter, brings this isolate a lease. Its hit was taken at t.
    expect((await edge.precount.decide("lv-obj", call, SYNC_MS, defer)).allowed).toBe(true);
    expect((await edge.precount.decide("lv-obj", call, SYNC_MS, defer)).allowed).toBe(true);
    t += 10;
    stepping = true;
    // Checked 10 ms after the last hit (hot); a second reading 40 ms, a third 70 ms after it (cold).
    const verdicts = edge.localVerdicts([{ call, cacheable: true, syncMs: SYNC_MS }], defer);
    stepping = false;
    expect(verdicts?.map((v) => v.allowed)).toEqual([true]);
    expect(edge.precount.stats.local).toBe(1);
  });

  it("sends a request naming one counter twice, with different costs, to the object rather than spending one budget twice", async () => {
    const edge = new EdgeRuntime((env as unknown as Env).COUNTERS);
    const call: CounterCall = {
      key: `lv-twice-${Math.random()}`,
      cost: 1,
      limits: [{ id: "lv-fw2", algorithm: "fixed_window", limit: 1_000, windowMs: 3_600_000, burst: 1_000 }],
    };
    const background: Promise<unknown>[] = [];
    const defer = (p: Promise<unknown>) => void background.push(p);
    await edge.precount.decide("lv-obj-2", call, SYNC_MS, defer);
    await edge.precount.decide("lv-obj-2", call, SYNC_MS, defer);
    // Alone, either call would be decided here (the isolate holds a lease): only naming the counter twice sends them on.
    expect(edge.precount.canDecideLocally(call, SYNC_MS)).toBe(true);
    const items = [
      { call, cacheable: true, syncMs: SYNC_MS },
      { call: { ...call, cost: 2 }, cacheable: true, syncMs: SYNC_MS },
    ];
    expect(edge.localVerdicts(items, defer)).toBeUndefined();
    const verdicts = await edge.decideCalls("lv-obj-2", items, defer);
    expect(verdicts.map((v) => v.allowed)).toEqual([true, true]);
    await Promise.all(background);
  });
});
