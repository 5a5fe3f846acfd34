/**
 * FAILURE_MODE's answer built from what the isolate knows
 * (docs/reliability.md, "Failure mode"): the calls whose objects could not
 * answer are decided from the certain-block cache (in every mode: a key
 * known to be over its limit stays refused, to the end of its block) and, with `local`, from the
 * isolate's own counters (src/isolate/local-counters.ts), the hits it allows
 * owed to their objects (src/isolate/debts.ts).
 */
import type { CounterVerdict } from "../stored/wire-calls.ts";
import type { EdgeRuntime } from "../isolate/runtime.ts";
import { blockKey } from "../isolate/block-cache.ts";
import { routeOf } from "../isolate/route.ts";
import { resultOf, type Unanswered } from "../limiter/decide.ts";
import { fold } from "../limiter/fold.ts";
import type { RateLimitResult } from "../limiter/types.ts";

/**
 * The result for `unanswered` calls: undefined when `decideLocally` is
 * false and no call is known refused (the mode's fixed answer applies).
 * Locally decided calls are counted only when no call is known refused.
 *
 * @example
 * const result = isolateDecision(edge, error.unanswered, true, false); // allowed up to each limit per isolate
 */
export function isolateDecision(
  edge: EdgeRuntime,
  unanswered: Unanswered,
  decideLocally: boolean,
  shadowAll: boolean | undefined,
): RateLimitResult | undefined {
  const now = edge.now();
  let known = false;
  const cached = unanswered.groups.map((calls) =>
    calls.map((item) => {
      const route = routeOf(item, edge.blocks, now);
      // A block is known to its end, past the cache's hold (block-cache.ts, `known`): the key stays refused for all of it.
      const verdict =
        route.kind === "cached" || route.kind === "refused" ? route.verdict : item.cacheable ? edge.blocks.known(blockKey(item.call), now) : undefined;
      if (verdict === undefined) return undefined;
      if (!verdict.allowed) known = true;
      // A hit refused by a known penalty block is a breach, carried to the object once it answers again (src/isolate/breaches.ts).
      if (route.kind !== "refused") edge.breaches.count(item.call);
      return verdict;
    }),
  );
  if (!known && !decideLocally) return undefined;
  const answers: CounterVerdict[][] = unanswered.groups.map((calls, g) =>
    calls.map((item, i) => {
      const name = unanswered.outcomes[item.outcome].counter?.object ?? "";
      const answer = cached[g][i] ?? (known ? edge.local.peek(name, item.call, now) : edge.local.decide(name, item.call, now));
      // Hits allowed here are owed to the object, which counts them with the counter's next call (src/isolate/debts.ts).
      if (!known && cached[g][i] === undefined && answer.allowed) edge.debts.owe(name, item.call, edge.local.quietAt(name, item.call));
      return answer;
    }),
  );
  fold(unanswered.outcomes, unanswered.groups, answers);
  const result = resultOf(unanswered.outcomes, shadowAll);
  return decideLocally ? { ...result, decidedLocally: true } : result;
}
