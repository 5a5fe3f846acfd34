/**
 * The isolate's own count of what it let through (docs/reliability.md,
 * "Failure mode"): one state per counter (its object, key and windows),
 * decided by the same pure algorithm the counter object uses. It counts
 * every hit this isolate allowed, whoever decided it, so when it refuses,
 * this isolate has already let the limit through. With FAILURE_MODE=local
 * it decides the calls whose object cannot answer, so an outage lets
 * through at most each limit per isolate and window, whatever other keys
 * pass through meanwhile (a counter pushed out leaves a trace,
 * local-traces.ts). It never overrules an object: the hits it allows are
 * reported to the object (debts.ts).
 */
import { algorithms } from "../algorithms/index.ts";
import type { Decision } from "../algorithms/types.ts";
import type { CounterCall, CounterVerdict, LimitCall } from "../stored/wire-calls.ts";
import { counterOwner } from "./debts.ts";
import { LocalTraces } from "./local-traces.ts";

/**
 * Counter keys kept per isolate. Every decision, allowed or refused, makes a
 * counter the newest; past the bound the oldest is forgotten, leaving a
 * trace while its hits still count (local-traces.ts), which the key starts
 * from again.
 */
export const LOCAL_COUNTER_KEYS = 10_000;

interface Counter {
  readonly limits: readonly LimitCall[];
  /** Each limit's state, in the order of `limits` (undefined: none yet, or a concurrency window). */
  readonly states: readonly unknown[];
}

/**
 * Per-isolate counters for FAILURE_MODE=local.
 *
 * @example
 * const local = new LocalCounters();
 * local.decide("api/shard/3", call, Date.now()).allowed; // true until this isolate has allowed the limit
 */
export class LocalCounters {
  private readonly counters = new Map<string, Counter>();
  private readonly traces: LocalTraces;
  private readonly capacity: number;
  /** Calls decided here because their object could not answer, for tests and the bench. */
  decided = 0;

  constructor(capacity = LOCAL_COUNTER_KEYS, traces = new LocalTraces()) {
    this.capacity = capacity;
    this.traces = traces;
  }

  /** Counters kept. */
  get size(): number {
    return this.counters.size;
  }

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
    const counter = this.counters.get(counterId(objectName, call));
    return counter === undefined ? -Infinity : quietAt(counter);
  }

  private step(key: string, call: CounterCall, now: number, commit: boolean): CounterVerdict {
    const states = this.counters.get(key)?.states ?? this.fromTrace(key, call, now, commit);
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
    // Allowed or refused, the counter is the newest (the map's order is its use): a refused key is not the first forgotten.
    if (commit) this.keep(key, { limits: call.limits, states: allowed ? next : states }, now);
    return { allowed, decisions };
  }

  private keep(key: string, counter: Counter, now: number): void {
    this.counters.delete(key);
    if (!counter.states.some((state) => state !== undefined)) return;
    this.counters.set(key, counter);
    if (this.counters.size <= this.capacity) return;
    const oldest = this.counters.keys().next().value as string;
    const forgotten = this.counters.get(oldest) as Counter;
    this.counters.delete(oldest);
    // Forgotten while its hits still count: a trace keeps how full it was (local-traces.ts).
    const until = quietAt(forgotten);
    if (until > now) this.traces.leave(oldest, until, usedShare(forgotten, now), now);
  }

  // The states a key forgotten while it counted starts from: each window charged its trace's share of its capacity, now.
  private fromTrace(key: string, call: CounterCall, now: number, take: boolean): readonly unknown[] {
    const share = this.traces.share(key, now, take);
    if (share <= 0) return [];
    return call.limits.map((limit) => {
      if (limit.concurrency === true) return undefined;
      const algorithm = algorithms[limit.algorithm];
      const capacity = algorithm.decide(undefined, limit, now, 0).decision.remaining;
      const hits = Math.min(capacity, Math.ceil(share * capacity));
      return hits > 0 ? algorithm.decide(undefined, limit, now, hits).state : undefined;
    });
  }
}

// When every window of `counter` has forgotten its hits.
function quietAt(counter: Counter): number {
  let at = -Infinity;
  counter.limits.forEach((limit, i) => {
    const state = counter.states[i];
    if (state !== undefined && limit.concurrency !== true) at = Math.max(at, algorithms[limit.algorithm].idleAt(state, limit));
  });
  return at;
}

// The share (0–1) of its capacity the fullest window of `counter` has used at `now`.
function usedShare(counter: Counter, now: number): number {
  let share = 0;
  counter.limits.forEach((limit, i) => {
    const state = counter.states[i];
    if (state === undefined || limit.concurrency === true) return;
    const algorithm = algorithms[limit.algorithm];
    const capacity = algorithm.decide(undefined, limit, now, 0).decision.remaining;
    const left = algorithm.decide(state, limit, now, 0).decision.remaining;
    share = Math.max(share, capacity > 0 ? (capacity - left) / capacity : 1);
  });
  return Math.min(1, share);
}

// The counter's owner (a region's copy of a regional limit is its own counter; a relayed call's is the home's) and
// the windows' ids with the key: a changed rule starts a fresh count rather than reading another's state.
function counterId(objectName: string, call: CounterCall): string {
  return `${counterOwner(objectName, call)}\n${call.key}\n${call.limits.map((limit) => limit.id).join(",")}`;
}
