/**
 * Relayed calls whose counter is owed hits (allowed by this isolate on its
 * own while the objects could not answer, src/isolate/debts.ts), or was while
 * those hits still count, go to the counter's home, as plain decide calls:
 * the debts are paid where the counter is kept, before the call is decided
 * there (docs/reliability.md, "Failure mode"). A region's copy holds a
 * lease of the home's counter, not the counter: debts paid there would
 * count nowhere, and the lease it holds, taken before they were paid,
 * would let it allow past the limit.
 */
import { homeOf } from "../durable/counters/regions.ts";
import type { CounterCall } from "../stored/wire-calls.ts";
import type { Plan, PlannedCall } from "./plan.ts";

/**
 * `plan`'s calls per object, the relayed ones whose counter `owes` moved to
 * their home (and their outcomes' counters with them); `plan.byObject`
 * itself when none is.
 *
 * @example
 * const byObject = edge.debts.size === 0 ? plan.byObject : owedToHome(plan, (home, call) => edge.debts.owes(home, call, now));
 */
export function owedToHome(plan: Plan, owes: (home: string, call: CounterCall) => boolean): Map<string, PlannedCall[]> {
  const byObject = new Map<string, PlannedCall[]>();
  let moved = false;
  for (const [name, calls] of plan.byObject) {
    for (const planned of calls) {
      let target = name;
      let item = planned;
      if (planned.call.kind === "relay" && owes(homeOf(name), planned.call)) {
        const call: CounterCall = { key: planned.call.key, limits: planned.call.limits, cost: planned.call.cost };
        target = homeOf(name);
        item = { ...planned, call };
        plan.outcomes[planned.outcome].counter = { object: target, call };
        moved = true;
      }
      const list = byObject.get(target);
      if (list === undefined) byObject.set(target, [item]);
      else list.push(item);
    }
  }
  return moved ? byObject : plan.byObject;
}
