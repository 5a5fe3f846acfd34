/**
 * A token budget's refund rides with the isolate's next batch to its
 * object (src/isolate/carried-refunds.ts, docs/llm.md "Costs and limits"):
 * one RPC serves both, the object applies the refund before that batch's
 * decision, a refund no batch took within REFUND_CARRY_MS is sent alone,
 * one whose batch failed is sent alone and applied once (its `op`), and an
 * extra charge never waits. Plain counter objects (test/support/plain-counters.ts)
 * on a driven clock and faked timers.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Env } from "../../src/config.ts";
import { AppliedIds } from "../../src/durable/counters/applied-ids.ts";
import { CarriedRefunds, REFUND_CARRY_MS, RIDING_GIVE_UP_MS } from "../../src/isolate/carried-refunds.ts";
import { EdgeRuntime } from "../../src/isolate/runtime.ts";
import { decide } from "../../src/limiter/decide.ts";
import { sendSettlements, settledCharges, settlementCalls } from "../../src/limiter/reconcile.ts";
import type { RateLimitResult } from "../../src/limiter/types.ts";
import { fromWire, toWire } from "../../src/stored/wire.ts";
import type { CounterCall } from "../../src/stored/wire-calls.ts";
import { domainOf } from "../rules/helpers.ts";
import { plainNamespace } from "../support/plain-counters.ts";

const domain = domainOf({ domain: "tokens", descriptors: [{ key: "k", rate_limit: { unit: "hour", requests_per_unit: 1000, algorithm: "fixed_window" } }] });
const START = 3_600_000 * 500;
const USAGE = { kind: "usage" as const, preset: "openai" as const, tokens: "total" as const };
const answered = { status: 200, headers: new Headers() };

/**
 * An edge over plain objects that remember the ids they applied, as the
 * counter object does (src/durable/counters/applied-ids.ts), whose transport
 * can be made to fail (`fail`: before the object applies a batch, or after, its answer lost).
 */
function setup() {
  const counters = plainNamespace(() => START);
  const applied = new AppliedIds();
  let rpcs = 0;
  const state = { fail: undefined as undefined | "before" | "after" };
  const binding = {
    ...counters.binding,
    getByName: (name: string) => ({
      decideText: async (text: string) => {
        rpcs += 1;
        const failing = state.fail;
        state.fail = undefined;
        if (failing === "before") throw new Error("object unreachable");
        const answer = toWire(await applied.decide(fromWire<CounterCall[]>(text), START, (fresh) => counters.send(name, fresh)));
        if (failing === "after") throw new Error("answer lost");
        return answer;
      },
    }),
  } as unknown as Env["COUNTERS"];
  const edge = new EdgeRuntime(binding, { now: () => START, coalesce: false });
  const request = (cost: number) =>
    decide(edge, [{ domain, descriptors: [[{ key: "k", value: "v" }]], costFromResponse: USAGE, costs: [cost] }], { timeoutMs: 1_000, cost });
  const background: Promise<unknown>[] = [];
  const defer = (p: Promise<unknown>) => void background.push(p);
  return { edge, request, background, defer, state, rpcs: () => rpcs };
}

/** The result as the object answers a call it charged (the plain objects leave out `chargedAt`). */
function stamped(result: RateLimitResult): RateLimitResult {
  return { ...result, descriptors: result.descriptors?.map((outcome) => ({ ...outcome, chargedAt: START })) };
}

const settle = (s: ReturnType<typeof setup>, result: RateLimitResult, tokens: number) =>
  sendSettlements(s.edge, settlementCalls(settledCharges(stamped(result), answered, { tokens, cut: false })), s.defer, true);

const remaining = async (s: ReturnType<typeof setup>) => (await s.request(0)).remaining;

beforeEach(() => void vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] }));
afterEach(() => void vi.useRealTimers());

describe("a token budget's refund", () => {
  it("rides with the next batch to its object: one RPC for both, applied before that batch's decision", async () => {
    const s = setup();
    const first = await s.request(500);
    settle(s, first, 200);
    expect(s.rpcs()).toBe(1);
    const second = await s.request(500);
    // 1000 − 200 used − 500 reserved: the second saw the first's refund of 300.
    expect(second.remaining).toBe(300);
    expect(s.rpcs()).toBe(2);
    await vi.advanceTimersByTimeAsync(REFUND_CARRY_MS);
    await Promise.all(s.background);
    expect(s.rpcs()).toBe(2);
    expect(await remaining(s)).toBe(300);
  });

  it("is sent alone once REFUND_CARRY_MS passed with no batch to its object", async () => {
    const s = setup();
    settle(s, await s.request(500), 200);
    await vi.advanceTimersByTimeAsync(REFUND_CARRY_MS - 1);
    expect(s.rpcs()).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    await Promise.all(s.background);
    expect(s.rpcs()).toBe(2);
    expect(await remaining(s)).toBe(800);
  });

  it.each(["before", "after"] as const)("taken by a batch that failed (%s the object applied it): sent alone, applied once", async (when) => {
    const s = setup();
    settle(s, await s.request(500), 200);
    s.state.fail = when;
    await expect(s.request(100)).rejects.toThrow();
    await vi.advanceTimersByTimeAsync(REFUND_CARRY_MS);
    await Promise.all(s.background);
    expect(s.rpcs()).toBe(3);
    // The failed batch's own 100 counts only when the object applied it; the refund of 300 counts once either way.
    expect(await remaining(s)).toBe(when === "after" ? 700 : 800);
  });

  it("an extra charge never waits: sent at once", async () => {
    const s = setup();
    settle(s, await s.request(500), 650);
    expect(s.rpcs()).toBe(2);
    await Promise.all(s.background);
    expect(await remaining(s)).toBe(350);
  });
});

describe("CarriedRefunds", () => {
  const refund = (op: string): CounterCall => ({ kind: "refund", op, key: "k", limits: [], cost: 1, chargedAt: START });

  it("carries every refund waiting for the object, first, and only to that object; answers leave theirs out", () => {
    const book = new CarriedRefunds();
    const a = book.park("obj", [refund("a")]);
    const b = book.park("obj", [refund("b")]);
    book.park("other", [refund("c")]);
    const own: CounterCall = { key: "k", cost: 1, limits: [] };
    expect(book.attach("nope", [own])).toBeUndefined();
    const batch = book.attach("obj", [own]);
    expect(batch?.calls.map((call) => ("op" in call ? call.op : "own"))).toEqual(["a", "b", "own"]);
    expect(batch?.answers([1, 2, 3])).toEqual([3]);
    expect([a.state, b.state, book.size]).toEqual(["riding", "riding", 1]);
    expect(book.attach("obj", [own])).toBeUndefined();
    batch?.failed();
    expect([a.state, b.state]).toEqual(["parked", "parked"]);
    // Taken out to be sent alone: no batch carries it, a later failure parks nothing again.
    book.unpark(a);
    const again = book.attach("obj", [own]);
    expect(again?.calls.map((call) => ("op" in call ? call.op : "own"))).toEqual(["b", "own"]);
    again?.delivered();
    expect([a.state, b.state]).toEqual(["alone", "delivered"]);
  });

  it(`a refund whose batch stays out is sent alone after RIDING_GIVE_UP_MS (${RIDING_GIVE_UP_MS} ms)`, async () => {
    const s = setup();
    settle(s, await s.request(500), 200);
    const entry = [...(s.edge.refunds as unknown as { parked: Map<string, { state: string }[]> }).parked.values()][0][0];
    // A batch took it and never answers (its request ended): the refund's own request sends it once it gives up.
    entry.state = "riding";
    (s.edge.refunds as unknown as { parked: Map<string, unknown> }).parked.clear();
    await vi.advanceTimersByTimeAsync(REFUND_CARRY_MS + RIDING_GIVE_UP_MS - 1);
    expect(s.rpcs()).toBe(1);
    await vi.advanceTimersByTimeAsync(REFUND_CARRY_MS);
    await Promise.all(s.background);
    expect(s.rpcs()).toBe(2);
    expect(await remaining(s)).toBe(800);
  });
});
