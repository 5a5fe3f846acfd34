import { env } from "cloudflare:workers";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { CounterCall } from "../../src/durable/protocol.ts";
import { PRECOUNT_SHARE, PrecountTable } from "../../src/edge/precount.ts";
import type { Env } from "../../src/env.ts";

const counters = (env as unknown as Env).COUNTERS;
const send = (name: string, calls: readonly CounterCall[]) => counters.getByName(name).decide(calls);

function limitCall(key: string, limit: number, algorithm: "fixed_window" | "sliding_window_counter" | "token_bucket" = "fixed_window"): CounterCall {
  return { key, cost: 1, limits: [{ id: `pc-${algorithm}-${limit}`, algorithm, limit, windowMs: 3_600_000, burst: limit }] };
}

/** An edge: its own precount table, and the background work it would hand to ctx.waitUntil. */
function edge() {
  const background: Promise<unknown>[] = [];
  const table = new PrecountTable(send, () => Date.now());
  return { table, background, defer: (p: Promise<unknown>) => void background.push(p) };
}

const SYNC_MS = 25;

describe("edge pre-counting", () => {
  it("on one edge never allows more than the limit (budget is a share of what is left)", async () => {
    const e = edge();
    const call = limitCall("pc-one-edge", 40);
    let allowed = 0;
    for (let i = 0; i < 100; i++) if ((await e.table.decide("pc-obj-1", call, SYNC_MS, e.defer)).allowed) allowed += 1;
    await Promise.all(e.background);
    expect(allowed).toBe(40);
    expect(e.table.stats.overshoot).toBe(0);
    expect(e.table.stats.local).toBeGreaterThan(0);
    const [peek] = await send("pc-obj-1", [{ ...call, cost: 0 }]);
    expect(peek.decisions[0].remaining).toBe(0);
  });

  it("across edges stays within the documented bound E × share × limit, and converges within 2 × sync_ms", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 4 }),
        fc.integer({ min: 20, max: 120 }),
        fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 150, maxLength: 300 }),
        async (edgeCount, limit, trace) => {
          const key = `pc-multi-${edgeCount}-${limit}-${trace.length}-${Math.random()}`;
          const call = limitCall(key, limit);
          const edges = Array.from({ length: edgeCount }, edge);
          let allowed = 0;
          // Waves of concurrent requests, each to the edge the trace names.
          for (let i = 0; i < trace.length; i += 10) {
            const wave = trace.slice(i, i + 10).map((n) => edges[n % edgeCount]);
            const verdicts = await Promise.all(wave.map((e) => e.table.decide(`pc-obj-${key}`, call, SYNC_MS, e.defer)));
            allowed += verdicts.filter((v) => v.allowed).length;
          }
          const bound = edgeCount * PRECOUNT_SHARE * limit;
          expect(allowed).toBeLessThanOrEqual(limit + bound);
          expect(allowed).toBeGreaterThanOrEqual(Math.min(limit, trace.length));
          await new Promise((r) => setTimeout(r, 2 * SYNC_MS + 10));
          await Promise.all(edges.flatMap((e) => e.background));
          const [truth] = await send(`pc-obj-${key}`, [{ ...call, cost: 0 }]);
          for (const e of edges) expect(e.table.view(call)?.[0].remaining ?? truth.decisions[0].remaining).toBe(truth.decisions[0].remaining);
          const overshoot = edges.reduce((sum, e) => sum + e.table.stats.overshoot, 0);
          expect(allowed - overshoot).toBeLessThanOrEqual(limit);
        },
      ),
      { numRuns: 8, seed: 7 },
    );
  });
});

describe("edge pre-counting memory", () => {
  it("keeps at most PRECOUNT_ENTRIES counters, forgetting idle ones first", async () => {
    const { PRECOUNT_ENTRIES } = await import("../../src/edge/precount.ts");
    // A fake object answering every call with plenty of room: only the table's bookkeeping is under test.
    const roomy = async (_name: string, calls: readonly CounterCall[]) =>
      calls.map(() => ({ allowed: true, decisions: [{ allowed: true, limit: 1e6, remaining: 1e6, resetAfterMs: 0, retryAfterMs: 0 }] }));
    const table = new PrecountTable(roomy, () => 0);
    for (let i = 0; i < PRECOUNT_ENTRIES + 500; i++) await table.decide("obj", limitCall(`mem-${i}`, 10), 100, () => undefined);
    expect(table.size).toBeLessThanOrEqual(PRECOUNT_ENTRIES);
  });
});
