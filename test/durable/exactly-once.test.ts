/**
 * Exactly once (docs/reliability.md, "Exactly once"): a refund, a usage
 * settlement, a debt payment or a pre-counting sync whose answer is lost
 * after its object applied it is retried by the edge on a fresh stub with
 * the same id, and the object applies it once. Real objects; the answer is
 * lost by a wrapper of the namespace (test/support/late-counters.ts).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/config.ts";
import { EdgeRuntime } from "../../src/isolate/runtime.ts";
import { reconciliationCalls } from "../../src/limiter/reconcile.ts";
import type { CounterCall } from "../../src/stored/wire-calls.ts";
import { lossyCounters } from "../support/late-counters.ts";
import { perHour } from "../support/limits.ts";

const counters = (env as unknown as Env).COUNTERS;
let n = 0;
const fresh = (name: string) => `exactly-once/${name}/${++n}/${Date.now()}`;
const noDefer = () => undefined;

async function remaining(name: string, call: CounterCall): Promise<number> {
  return (await counters.getByName(name).peek({ ...call, cost: 0 })).decisions[0].remaining;
}

/** An edge whose object calls go through lossy counters, each call its own RPC. */
function lossyEdge() {
  const lossy = lossyCounters();
  return { lossy, edge: new EdgeRuntime(lossy.counters, { coalesce: false }) };
}

/** A fresh key with a limit of 10 an hour, and a lossy edge that owes it 3 hits (allowed in this isolate during an outage), paid with the counter's next call. */
function owingEdge(name: string) {
  const key = fresh(name);
  const call: CounterCall = { key, limits: [perHour(10)], cost: 1 };
  const { lossy, edge } = lossyEdge();
  edge.debts.owe(key, { ...call, cost: 3 }, Date.now() + 3_600_000);
  return { key, call, lossy, decide: () => edge.decideCalls(key, [{ call, cacheable: true }], noDefer) };
}

describe('exactly once (docs/reliability.md, "Exactly once")', () => {
  it("a refund whose answer is lost after it applied is retried and gives back its hit once", async () => {
    const key = fresh("refund");
    // A fixed window: a second refund would take a second hit off its count (a sliding log finds no entry the second time).
    const limits = [perHour(3, "fixed_window")];
    const stub = counters.getByName(key);
    // Three requests spend the limit; the third's response does not count (count_when): its hit is refunded.
    const taken = [];
    for (let i = 0; i < 3; i++) taken.push((await stub.decide([{ key, limits, cost: 1, refundable: true }]))[0]);
    expect(taken.every((v) => v.allowed)).toBe(true);
    const { lossy, edge } = lossyEdge();
    lossy.loseNext();
    const refund: CounterCall = { kind: "refund", op: "test-refund-1", key, limits, cost: 1, chargedAt: taken[2].chargedAt as number };
    await edge.decideCalls(key, [{ call: refund, cacheable: false }], noDefer);
    // Sent twice (the retry), the same text both times, applied once: one hit free, not two.
    expect(lossy.texts).toHaveLength(2);
    expect(lossy.texts[1]).toBe(lossy.texts[0]);
    expect(edge.stats.retries).toBe(1);
    expect(await remaining(key, { key, limits, cost: 1 })).toBe(1);
  });

  it("the settlements the edge makes carry ids: a refund and an extra charge each a fresh one", () => {
    const key = fresh("settle");
    const limits = [perHour(10)];
    const outcome = (policyCount: number) => ({
      counter: { object: key, call: { key, limits, cost: 4, refundable: true } },
      chargedAt: 1_000,
      cost: 4,
      costFromResponse: { kind: "header" as const, name: "x-cost" },
      policies: Array.from({ length: policyCount }, () => ({ rule: {} })),
    });
    const result = { allowed: true, descriptors: [outcome(1)] } as never;
    const [less] = reconciliationCalls(result, { status: 200, headers: new Headers({ "x-cost": "1" }) });
    const [more] = reconciliationCalls(result, { status: 200, headers: new Headers({ "x-cost": "9" }) });
    expect(less.call).toMatchObject({ kind: "refund", cost: 3 });
    expect(more.call).toMatchObject({ kind: "absorb", cost: 5 });
    const ops = [less.call, more.call].map((call) => (call as { op?: string }).op);
    expect(ops.every((op) => typeof op === "string" && op.length > 0 && op.length <= 64)).toBe(true);
    expect(ops[0]).not.toBe(ops[1]);
  });

  it("a debt payment whose answer is lost is charged once; the call it rode with is decided again (it only refuses sooner)", async () => {
    const { key, call, lossy, decide } = owingEdge("debt");
    lossy.loseNext();
    const [verdict] = await decide();
    expect(verdict.allowed).toBe(true);
    expect(lossy.texts).toHaveLength(2);
    expect(lossy.texts[0]).toContain('"kind":"absorb"');
    expect(lossy.texts[1]).toBe(lossy.texts[0]);
    // 3 owed, once; the decide twice (it was applied, then sent again): 10 − 3 − 2.
    expect(await remaining(key, call)).toBe(5);
  });

  it("a debt payment that failed keeps its id when sent again with the next call, so an object that applied it takes it once", async () => {
    const { key, call, lossy, decide } = owingEdge("debt-again");
    // Both the call and its retry applied, both answers lost: the request fails, the debt is owed again.
    lossy.loseNext();
    lossy.loseNext();
    await expect(decide()).rejects.toThrow(/reset/);
    await decide();
    const ops = lossy.texts.map((text) => /"op":"([^"]+)"/.exec(text)?.[1]);
    expect(ops).toHaveLength(3);
    expect(new Set(ops).size).toBe(1);
    // 3 owed, once; the decide three times: 10 − 3 − 3.
    expect(await remaining(key, call)).toBe(4);
  });
});
