/**
 * The coalescer's stated bounds, each exact on fake time (Date and timers
 * move only when the test says): batches of at most MAX_BATCH_CALLS, an RPC
 * that never answers stops making its object busy BUSY_FOR_MS after it
 * left, a contended batch's sender is kept alive keepAliveMs and no longer,
 * a waiter gives up maxWaitMs + keepAliveMs after it joined, and a waiter
 * picks up its answer within an eighth of the round trip (POLL_MS at least).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { CounterCall, CounterVerdict } from "../../src/stored/wire-calls.ts";
import { BUSY_FOR_MS, Coalescer, MAX_BATCH_CALLS } from "../../src/isolate/coalescer.ts";

const call = (key: string): CounterCall => ({ key, cost: 1, limits: [] });
const verdictFor = (c: CounterCall): CounterVerdict => ({
  allowed: true,
  decisions: [{ allowed: true, limit: 1, remaining: Number(c.key), resetAfterMs: 0, retryAfterMs: 0, effectiveWindowMs: 1000 }],
});

/** A transport whose RPCs complete only when the test says so; `at` is when each left. */
function manualTransport() {
  const batches: { calls: readonly CounterCall[]; at: number; finish: () => void }[] = [];
  const send = (_name: string, calls: readonly CounterCall[]) =>
    new Promise<CounterVerdict[]>((resolve) => {
      batches.push({ calls, at: Date.now(), finish: () => resolve(calls.map(verdictFor)) });
    });
  return { batches, send };
}

const T0 = 1_000_000;
beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date", "setTimeout", "clearTimeout"], now: T0 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe("coalescer bounds", () => {
  it(`carries at most ${MAX_BATCH_CALLS} calls in one RPC`, async () => {
    const t = manualTransport();
    const coalescer = new Coalescer(t.send);
    const all = Array.from({ length: 1 + MAX_BATCH_CALLS + 88 }, (_, i) => coalescer.submit("obj", [call(String(i))]));
    await vi.advanceTimersByTimeAsync(1);
    t.batches[0].finish();
    for (let i = 0; i < 20 && t.batches.length < 3; i++) {
      await vi.advanceTimersByTimeAsync(1);
      for (const batch of t.batches) batch.finish();
    }
    await vi.advanceTimersByTimeAsync(20);
    for (const batch of t.batches) batch.finish();
    expect(t.batches.map((b) => b.calls.length)).toEqual([1, MAX_BATCH_CALLS, 88]);
    const verdicts = await Promise.all(all);
    expect(verdicts.map((v) => v[0].decisions[0].remaining)).toEqual(all.map((_, i) => i));
  });

  it(`an RPC that never answers keeps its object busy for ${BUSY_FOR_MS} ms, not a millisecond more`, async () => {
    const t = manualTransport();
    // Waiting on a busy object is otherwise bounded by maxWaitMs: make it long, so only the busy time decides.
    const coalescer = new Coalescer(t.send, { maxWaitMs: 10_000, keepAliveMs: 10_000 });
    void coalescer.submit("obj", [call("1")]);
    await vi.advanceTimersByTimeAsync(BUSY_FOR_MS - 1);
    const next = coalescer.submit("obj", [call("2")]);
    await vi.advanceTimersByTimeAsync(0);
    expect(t.batches).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(t.batches.map((b) => b.at - T0)).toEqual([0, BUSY_FOR_MS]);
    t.batches[1].finish();
    await vi.advanceTimersByTimeAsync(1);
    expect((await next)[0].decisions[0].remaining).toBe(2);
  });

  it("keeps the sender of a contended batch alive keepAliveMs after it left, and a lone sender not at all", async () => {
    const t = manualTransport();
    const coalescer = new Coalescer(t.send, { keepAliveMs: 300, maxWaitMs: 50 });
    const loneKept: Promise<unknown>[] = [];
    void coalescer.submit("obj", [call("1")], (p) => void loneKept.push(p));
    expect(loneKept).toHaveLength(0);
    const kept: Promise<unknown>[] = [];
    void coalescer.submit("obj", [call("2")], (p) => void kept.push(p)).catch(() => undefined);
    void coalescer.submit("obj", [call("3")]).catch(() => undefined);
    // The first RPC answers at 5; the waiters' batch then leaves from the first waiter's timer, and never answers.
    await vi.advanceTimersByTimeAsync(5);
    t.batches[0].finish();
    await vi.advanceTimersByTimeAsync(1);
    expect(t.batches).toHaveLength(2);
    const left = t.batches[1].at;
    // Its own answer and the keep-alive of the batch it sent for others.
    expect(kept).toHaveLength(2);
    let alive = true;
    void kept[1].then(() => (alive = false));
    await vi.advanceTimersByTimeAsync(left + 300 - 1 - Date.now());
    expect(alive).toBe(true);
    await vi.advanceTimersByTimeAsync(1);
    expect(alive).toBe(false);
  });

  it("a waiter whose batch never answers gives up maxWaitMs + keepAliveMs after it joined, naming the object", async () => {
    const t = manualTransport();
    const coalescer = new Coalescer(t.send, { keepAliveMs: 200, maxWaitMs: 40 });
    void coalescer.submit("obj", [call("1")]);
    let outcome: unknown;
    coalescer.submit("obj", [call("2")]).then(
      () => (outcome = "answered"),
      (error: Error) => (outcome = error.message),
    );
    await vi.advanceTimersByTimeAsync(239);
    expect(outcome).toBeUndefined();
    // Past maxWaitMs its batch went out although the first RPC never came back.
    expect(t.batches.map((b) => b.at - T0)).toEqual([0, 40]);
    await vi.advanceTimersByTimeAsync(1);
    expect(outcome).toBe("no answer from obj within 240 ms");
  });

  it("a waiter picks its answer up within an eighth of the round trip, at least POLL_MS", async () => {
    const t = manualTransport();
    const coalescer = new Coalescer(t.send, { maxWaitMs: 10_000, keepAliveMs: 10_000 });
    void coalescer.submit("obj", [call("1")]);
    let answeredAt: number | undefined;
    void coalescer.submit("obj", [call("2")]).then(() => (answeredAt = Date.now()));
    await vi.advanceTimersByTimeAsync(2);
    t.batches[0].finish();
    await vi.advanceTimersByTimeAsync(2);
    expect(t.batches).toHaveLength(2);
    const sentAt = t.batches[1].at;
    await vi.advanceTimersByTimeAsync(sentAt + 800 - Date.now());
    t.batches[1].finish();
    await vi.advanceTimersByTimeAsync(150);
    expect(answeredAt).toBeDefined();
    expect(answeredAt! - sentAt).toBeGreaterThanOrEqual(800);
    expect(answeredAt! - sentAt).toBeLessThanOrEqual(800 + 800 / 8);
  });
});
