/**
 * The isolate's own count of what it let through (docs/reliability.md,
 * "Failure mode"): one state per counter key and window, decided by the
 * same pure algorithm the counter object uses. It counts every hit this
 * isolate allowed, whoever decided it, so it is a lower bound of the
 * object's count: when it refuses, the object would too. With
 * FAILURE_MODE=local it decides the calls whose object cannot answer, so
 * an outage lets through at most each limit per isolate and window.
 */
import { algorithms } from "../algorithms/index.ts";
import type { Decision } from "../algorithms/types.ts";
import type { CounterCall, CounterVerdict } from "../durable/protocol.ts";

/** Counter keys kept per isolate; the oldest is forgotten past it (it then counts from zero again). */
export const LOCAL_COUNTER_KEYS = 10_000;

/**
 * Per-isolate counters for FAILURE_MODE=local.
 *
 * @example
 * const local = new LocalCounters();
 * local.decide(call, Date.now()).allowed; // true until this isolate has allowed the limit
 */
export class LocalCounters {
  private readonly states = new Map<string, unknown[]>();
  /**
   * Until when a counter's object may not know hits this isolate allowed on
   * its own (a window after the last): only then does the local count
   * overrule an object's "allowed". Otherwise the object is trusted, so a
   * refund or a reset the isolate does not see never refuses here.
   */
  private readonly owedUntil = new Map<string, number>();
  /** Calls decided here because their object could not answer, for tests and the bench. */
  decided = 0;

  /**
   * Decide `call` in this isolate at `now`, counting it when allowed.
   * Concurrency windows are not counted here (their slots are the object's): they allow.
   *
   * @example
   * const verdict = local.decide(objectName, call, now); // { allowed, decisions }
   */
  decide(objectName: string, call: CounterCall, now: number): CounterVerdict {
    this.decided += 1;
    const key = counterId(objectName, call);
    const verdict = this.step(key, call, now, true);
    if (verdict.allowed) this.owe(key, now + Math.max(...call.limits.map((limit) => limit.windowMs)));
    return verdict;
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
   * Take the object's answer to `call` into account: an allowed call is
   * counted here too; when this isolate decided some of the key's hits on its
   * own within the last window and has let the limit through, the answer
   * becomes a refusal (the object missed the hits allowed while it could
   * not be reached).
   *
   * @example
   * verdict = local.observe(objectName, call, verdict, now);
   */
  observe(objectName: string, call: CounterCall, verdict: CounterVerdict, now: number): CounterVerdict {
    // A refundable call's hit may be given back, which this count would not see.
    if (!verdict.allowed || call.refundable === true || (call.kind !== undefined && call.kind !== "decide" && call.kind !== "relay")) return verdict;
    const key = counterId(objectName, call);
    const own = this.step(key, call, now, true);
    if (own.allowed || (this.owedUntil.get(key) ?? 0) <= now) return verdict;
    return own;
  }

  private owe(key: string, until: number): void {
    this.owedUntil.delete(key);
    this.owedUntil.set(key, until);
    if (this.owedUntil.size > LOCAL_COUNTER_KEYS) this.owedUntil.delete(this.owedUntil.keys().next().value as string);
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

// The object (a region's copy is its own counter) and the windows' ids with the key: a changed rule starts a fresh count rather than reading another's state.
function counterId(objectName: string, call: CounterCall): string {
  return `${objectName}\n${call.key}\n${call.limits.map((limit) => limit.id).join(",")}`;
}
