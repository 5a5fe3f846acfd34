/**
 * Relayed calls of a counter that is owed hits go to the counter's home as
 * plain decide calls (docs/reliability.md, "Failure mode"): `owedToHome`
 * on plans built by hand. Only relay calls whose home `owes` move, their
 * outcomes' counters follow them, every other call stays where it was
 * planned, in order, and a plan with nothing owed is handed back as it is.
 */
import { describe, expect, it } from "vitest";
import { inRegion } from "../../src/durable/counters/regions.ts";
import { owedToHome } from "../../src/limiter/owed-home.ts";
import type { Plan, PlannedCall } from "../../src/limiter/plan.ts";
import type { CounterCall } from "../../src/stored/wire-calls.ts";

const HOME = "api/shard/3";
const WEUR = inRegion(HOME, "weur");
const OTHER = "api/shard/9";

function planned(outcome: number, call: CounterCall): PlannedCall {
  return { outcome, call, limits: [], honoured: true, cacheable: false } as unknown as PlannedCall;
}

const relay = (key: string): CounterCall => ({ kind: "relay", object: WEUR, key, limits: [{ limit: 10, windowMs: 1000 }], cost: 2 }) as unknown as CounterCall;
const decide = (key: string): CounterCall => ({ key, limits: [{ limit: 10, windowMs: 1000 }], cost: 1 }) as unknown as CounterCall;

function planOf(entries: [string, PlannedCall[]][]): Plan {
  const outcomes = Array.from({ length: 4 }, () => ({ policies: [] })) as unknown as Plan["outcomes"];
  return { outcomes, byObject: new Map(entries) };
}

describe("owedToHome", () => {
  it("a relay call whose home is owed goes home as a decide call, its outcome's counter with it", () => {
    const plan = planOf([[WEUR, [planned(0, relay("k"))]]]);
    const asked: [string, CounterCall][] = [];
    const byObject = owedToHome(plan, (home, call) => {
      asked.push([home, call]);
      return true;
    });
    expect(asked.map(([home]) => home)).toEqual([HOME]);
    const home = { key: "k", limits: [{ limit: 10, windowMs: 1000 }], cost: 2 };
    expect([...byObject.keys()]).toEqual([HOME]);
    expect(byObject.get(HOME)?.map((p) => [p.outcome, p.call, p.honoured])).toEqual([[0, home, true]]);
    expect(plan.outcomes[0].counter).toEqual({ object: HOME, call: home });
    // The relay call itself is not changed (the plan's own list keeps it).
    expect(plan.byObject.get(WEUR)?.[0].call).toEqual(relay("k"));
  });

  it("nothing owed: the plan's own map, and no outcome touched", () => {
    const plan = planOf([
      [WEUR, [planned(0, relay("a"))]],
      [OTHER, [planned(1, decide("b"))]],
    ]);
    expect(owedToHome(plan, () => false)).toBe(plan.byObject);
    expect(plan.outcomes.map((o) => o.counter)).toEqual([undefined, undefined, undefined, undefined]);
  });

  it("only relay calls are asked about and moved; the rest stay, in their order, beside the moved ones", () => {
    const plan = planOf([
      [HOME, [planned(0, decide("h"))]],
      [WEUR, [planned(1, relay("owed")), planned(2, relay("clear"))]],
      [OTHER, [planned(3, decide("o"))]],
    ]);
    const asked: string[] = [];
    const byObject = owedToHome(plan, (_home, call) => {
      asked.push(call.key);
      return call.key === "owed";
    });
    expect(asked).toEqual(["owed", "clear"]);
    expect([...byObject.entries()].map(([name, calls]) => [name, calls.map((p) => [p.outcome, p.call.kind ?? "decide"])])).toEqual([
      [
        HOME,
        [
          [0, "decide"],
          [1, "decide"],
        ],
      ],
      [WEUR, [[2, "relay"]]],
      [OTHER, [[3, "decide"]]],
    ]);
    expect(plan.outcomes.map((o) => o.counter?.object)).toEqual([undefined, HOME, undefined, undefined]);
  });

  it("a decide call to a regional name is never moved, even if its home is owed", () => {
    const plan = planOf([[WEUR, [planned(0, decide("d"))]]]);
    expect(owedToHome(plan, () => true)).toBe(plan.byObject);
  });
});
