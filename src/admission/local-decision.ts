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
 * How long after a local decision its timed-out calls' answers are waited
 * for, to take back the debts of those their objects allowed after all
 * (docs/reliability.md, "Late answers"): well within the 30 s a request may
 * run on after its response.
 */
export const LATE_ANSWER_MS = 10_000;

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
  const owed: [g: number, i: number, name: string][] = [];
  const answers: CounterVerdict[][] = unanswered.groups.map((calls, g) =>
    calls.map((item, i) => {
      const name = unanswered.outcomes[item.outcome].counter?.object ?? "";
      const answer = cached[g][i] ?? (known ? edge.local.peek(name, item.call, now) : edge.local.decide(name, item.call, now));
      // Hits allowed here are owed to the object, which counts them with the counter's next call (src/isolate/debts.ts).
      if (!known && cached[g][i] === undefined && answer.allowed) owed.push([g, i, name]);
      return answer;
    }),
  );
  if (owed.length > 0) oweOnceSettled(edge, unanswered, owed);
  fold(unanswered.outcomes, unanswered.groups, answers);
  const result = resultOf(unanswered.outcomes, shadowAll);
  return decideLocally ? { ...result, decidedLocally: true } : result;
}

/**
 * Owe the hits allowed here (src/isolate/debts.ts) at once, paid with the
 * next call to the object, so the object knows them while the timed-out
 * calls may still be on their way (docs/reliability.md, "Late answers");
 * then, if such a call's object answers it allowed after all (it charged
 * the hit), take the debt back while it has not been sent. The request is
 * kept alive until the answers are in, LATE_ANSWER_MS at most.
 */
function oweOnceSettled(edge: EdgeRuntime, unanswered: Unanswered, owed: readonly [number, number, string][]): void {
  const tokens = owed.map(([g, i, name]) => {
    const call = unanswered.groups[g][i].call;
    return edge.debts.owe(name, call, edge.local.quietAt(name, call));
  });
  const { late, defer } = unanswered;
  if (late === undefined || defer === undefined) return;
  const settle = (answers: CounterVerdict[][] | undefined) => {
    owed.forEach(([g, i], k) => {
      const token = tokens[k];
      // A region's copy that allowed a relayed call charged its own lease, which reaches the home later: the debt stays.
      const relayed = unanswered.groups[g][i].call.kind === "relay";
      if (token !== undefined && !relayed && answers?.[g]?.[i]?.allowed === true) edge.debts.cancel(token);
    });
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const given = new Promise<undefined>((resolve) => (timer = setTimeout(resolve, LATE_ANSWER_MS, undefined)));
  defer(
    Promise.race([late, given])
      .then(settle, () => undefined)
      .finally(() => {
        if (timer !== undefined) clearTimeout(timer);
      }),
  );
}
