/**
 * The isolate's own count of what it let through (docs/reliability.md,
 * "Failure mode"): one state per counter (its object, key and windows),
 * decided by the same pure algorithm the counter object uses. It counts
 * every hit this isolate allowed, whoever decided it, so when it refuses,
 * this isolate has already let the limit through. With FAILURE_MODE=local
 * it decides the calls whose object cannot answer, so an outage lets
 * through at most each limit per isolate and window. It never overrules an
 * object: the hits it allows are reported to the object (debts.ts).
 */
import { algorithms } from "../algorithms/index.ts";
import type { Decision } from "../algorithms/types.ts";
import type { CounterCall, CounterVerdict } from "../durable/protocol.ts";
import { counterOwner } from "./debts.ts";

/** Counter keys kept per isolate; the oldest is forgotten past it (it then counts from zero again). */
export const LOCAL_COUNTER_KEYS = 10_000;

/**
 * Per-isolate counters for FAILURE_MODE=local.
 *
 * @example
 * const local = new LocalCounters();
 * local.decide("api/shard/3", call, Date.now()).allowed; // true until this isolate has allowed the limit
 */
export class LocalCounters {
  private readonly states = new Map<string, unknown[]>();
  /** Calls decided here because their object could not answer, for tests and the bench. */
  decided = 0;

  /**
   * Decide `call` (addressed to `objectName`) in this isolate at `now`,
   * counting it when allowed. Concurrency windows are not counted here
   * (their slots are the object's): they allow.
   *
   * @example
   * const verdict = local.decide(objectName, call, now); // { allowed, decisions }
   */
  decide(objectName: string, call: CounterCall, now: number): CounterVerdict {
    this.decided += 1;
    return this.step(counterId(objectName, call), call, now, true);
  }

  /**
   * What `decide` would answer, counting nothing.
   *
   * @example
   * local.peek(objectName, call, now).allowed;
   */
  peek(objectName: string, call: CounterCall, now: number): CounterVerdict {
    return this.step(counterId(objectName, call), call, now, false);
  }

  /**
   * Count the hits of a call its object allowed, so that a later local
   * decision counts them too. Refundable calls are left out (their hits may
   * be given back, which this count would not see), and so are calls that
   * add no hits of a decision (absorb, refund, slots).
   *
   * @example
   * local.count(objectName, call, verdict, now);
   */
  count(objectName: string, call: CounterCall, verdict: CounterVerdict, now: number): void {
    if (!verdict.allowed || call.cost <= 0 || call.refundable === true) return;
    if (call.kind !== undefined && call.kind !== "decide" && call.kind !== "relay" && call.kind !== "reserve") return;
    this.step(counterId(objectName, call), call, now, true);
  }

  /**
   * From when this isolate's count of `call`'s counter has forgotten every
   * hit (each window's state is as good as none): the hits it allowed
   * before no longer count anywhere after that (debts.ts drops them then).
   *
   * @example
   * debts.owe(objectName, call, local.quietAt(objectName, call));
   */
  quietAt(objectName: string, call: CounterCall): number {
    const states = this.states.get(counterId(objectName, call)) ?? [];
    let at = -Infinity;
    call.limits.forEach((limit, i) => {
      if (states[i] !== undefined) at = Math.max(at, algorithms[limit.algorithm].idleAt(states[i], limit));
    });
    return at;
  }

  private step(key: string, call: CounterCall, now: number, commit: boolean): CounterVerdict {
    const states = this.states.get(key) ?? [];
    const next: unknown[] = [];
    const decisions: Decision[] = [];
    let allowed = true;
    call.limits.forEach((limit, i) => {
      if (limit.concurrency === true) {
        decisions.push({ allowed: true, limit: limit.limit, remaining: limit.limit, resetAfterMs: 0, retryAfterMs: 0, effectiveWindowMs: limit.windowMs });
        next.push(undefined);
        return;
      }
      const step = algorithms[limit.algorithm].decide(states[i], limit, now, call.cost);
      decisions.push(step.decision);
      next.push(step.state);
      if (!step.decision.allowed) allowed = false;
    });
    if (allowed && commit) {
      // Re-inserted at the end: the map's order is its use, so the first key is the one to forget.
      this.states.delete(key);
      this.states.set(key, next);
      if (this.states.size > LOCAL_COUNTER_KEYS) this.states.delete(this.states.keys().next().value as string);
    }
    return { allowed, decisions };
  }
}

// The counter's owner (a region's copy of a regional limit is its own counter; a relayed call's is the home's) and
// the windows' ids with the key: a changed rule starts a fresh count rather than reading another's state.
function counterId(objectName: string, call: CounterCall): string {
  return `${counterOwner(objectName, call)}\n${call.key}\n${call.limits.map((limit) => limit.id).join(",")}`;
}
