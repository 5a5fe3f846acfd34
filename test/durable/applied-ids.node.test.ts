/**
 * The counter object's ledger of applied ids (src/durable/counters/applied-ids.ts;
 * docs/reliability.md, "Exactly once"): a call with an id applied within
 * APPLIED_IDS_MS is answered as the first time and not applied again; the
 * ledger stays within its bytes, the oldest ids going first.
 */
import { describe, expect, it } from "vitest";
import { APPLIED_IDS_MS, AppliedIds } from "../../src/durable/counters/applied-ids.ts";
import type { CounterCall, CounterVerdict } from "../../src/stored/wire-calls.ts";

const limits = [{ id: "l", algorithm: "fixed_window" as const, limit: 10, windowMs: 60_000, burst: 10 }];
const refund = (op: string | undefined): CounterCall => ({ kind: "refund", ...(op === undefined ? {} : { op }), key: "k", limits, cost: 1, chargedAt: 0 });

/** An apply that counts what it was given and answers each call with its running number as `accepted`. */
function counting() {
  const seen: CounterCall[] = [];
  const apply = (fresh: readonly CounterCall[]): CounterVerdict[] =>
    fresh.map((call) => {
      seen.push(call);
      return { allowed: true, decisions: [], accepted: seen.length };
    });
  return { seen, apply };
}

describe("AppliedIds", () => {
  it("a call with an id seen before is answered as then and not applied; calls without one always are", () => {
    const applied = new AppliedIds();
    const { seen, apply } = counting();
    const first = applied.decide([refund("a"), refund(undefined)], 0, apply) as CounterVerdict[];
    const again = applied.decide([refund("a"), refund(undefined)], 500, apply) as CounterVerdict[];
    expect(seen).toHaveLength(3);
    expect(again[0]).toBe(first[0]);
    expect(again[1].accepted).toBe(3);
  });

  it("the same id twice in one batch is applied once, both answered alike, in order", () => {
    const applied = new AppliedIds();
    const { seen, apply } = counting();
    const verdicts = applied.decide([refund("x"), refund("y"), refund("x")], 0, apply) as CounterVerdict[];
    expect(seen.map((call) => (call as { op?: string }).op)).toEqual(["x", "y"]);
    expect(verdicts.map((v) => v.accepted)).toEqual([1, 2, 1]);
  });

  it(`remembered ${APPLIED_IDS_MS} ms: at ${APPLIED_IDS_MS - 1} ms still answered as applied, at ${APPLIED_IDS_MS} applied again`, () => {
    const applied = new AppliedIds();
    const { seen, apply } = counting();
    applied.decide([refund("a")], 1_000, apply);
    applied.decide([refund("a")], 1_000 + APPLIED_IDS_MS - 1, apply);
    expect(seen).toHaveLength(1);
    applied.decide([refund("a")], 1_000 + APPLIED_IDS_MS, apply);
    expect(seen).toHaveLength(2);
  });

  it("bounded in bytes: a flood of ids keeps the newest within the capacity, the oldest forgotten", () => {
    const applied = new AppliedIds(16 * 1024);
    const { apply } = counting();
    for (let i = 0; i < 10_000; i++) applied.decide([refund(`op-${i}`)], i, apply);
    expect(applied.bytes).toBeLessThanOrEqual(16 * 1024);
    expect(applied.size).toBeGreaterThan(50);
    const { seen, apply: again } = counting();
    applied.decide([refund("op-9999"), refund("op-0")], 10_000, again);
    expect(seen.map((call) => (call as { op?: string }).op)).toEqual(["op-0"]);
  });

  it("an id longer than 64 characters, or not a string, is no id: applied every time", () => {
    const applied = new AppliedIds();
    const { seen, apply } = counting();
    const long = refund("x".repeat(65));
    const numeric = { ...refund(undefined), op: 7 } as unknown as CounterCall;
    for (let i = 0; i < 2; i++) applied.decide([long, numeric], i, apply);
    expect(seen).toHaveLength(4);
    expect(applied.size).toBe(0);
  });

  it("a promise from apply (a relayed call) is remembered once it settles", async () => {
    const applied = new AppliedIds();
    let calls = 0;
    const apply = async (fresh: readonly CounterCall[]) => fresh.map(() => ({ allowed: true, decisions: [], accepted: ++calls }));
    await applied.decide([refund("p")], 0, apply);
    const [again] = await applied.decide([refund("p")], 1, apply);
    expect(calls).toBe(1);
    expect(again.accepted).toBe(1);
  });
});
