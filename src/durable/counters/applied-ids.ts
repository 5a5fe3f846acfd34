/**
 * Calls applied once (docs/reliability.md, "Exactly once"): a refund, a
 * debt payment, a usage settlement or a pre-counting sync (which may give
 * quota back) carries an `op` id, and the counter object remembers the ids
 * it applied with the answer it gave. A call whose answer was lost after
 * the object applied it (the platform's `retryable`), sent again by the
 * edge on a fresh stub with the same id, is answered as the first time and
 * changes nothing twice.
 *
 * How long: APPLIED_IDS_MS (60 s) after the call, within APPLIED_IDS_BYTES
 * (the oldest dropped first). The edge retries such a call at once, within
 * its decision timeout and the coalescer's wait (about a second), and
 * re-sends a failed debt payment with the counter's next call: both well
 * inside a minute while the object is not flooded with ids. In memory only:
 * an object reset between the call and its retry forgets the ids, and the
 * retry applies again; what that can cost is stated on that page.
 */
import type { CounterCall, CounterVerdict } from "../../stored/wire-calls.ts";

/** How long an applied id is remembered (at least the edge's retry window; see above). */
export const APPLIED_IDS_MS = 60_000;

/** Bytes the ids of one object may take: a sixteenth of its MEMORY_BYTES (counter-cache.ts), taken off the windows' share. */
export const APPLIED_IDS_BYTES = 512 * 1024;

/** The longest id kept; a longer one is no id (the call is applied as if it had none). */
export const OP_MAX_CHARS = 64;

// A Map slot, the record and the answer's object, beside the id's UTF-16 and the answer's decisions.
const RECORD_BYTES = 160;
const DECISION_BYTES = 120;

interface Applied {
  readonly at: number;
  readonly verdict: CounterVerdict;
  readonly bytes: number;
}

/** Every call of a batch: its id when it has one to remember. */
function opOf(call: CounterCall): string | undefined {
  const op = (call as { op?: unknown }).op;
  return typeof op === "string" && op.length > 0 && op.length <= OP_MAX_CHARS ? op : undefined;
}

/**
 * The ids one counter object applied lately.
 *
 * @example
 * const applied = new AppliedIds();
 * const verdicts = applied.decide(calls, now, (fresh) => core.decide(fresh, now));
 */
export class AppliedIds {
  private readonly ops = new Map<string, Applied>();
  private used = 0;
  private readonly capacity: number;
  private readonly keepMs: number;

  constructor(capacity = APPLIED_IDS_BYTES, keepMs = APPLIED_IDS_MS) {
    this.capacity = capacity;
    this.keepMs = keepMs;
  }

  /** Estimated bytes held: at most the capacity. */
  get bytes(): number {
    return this.used;
  }

  /** Ids remembered. */
  get size(): number {
    return this.ops.size;
  }

  /**
   * Decide `calls` in order: those whose id was applied (before, or earlier
   * in this batch) answered as then, the rest by `apply` (in their order),
   * whose answers to calls with ids are remembered.
   *
   * @example
   * applied.decide([{ kind: "refund", op: "a1.7", key, limits, cost: 1, chargedAt }], now, apply); // applied once
   */
  decide(
    calls: readonly CounterCall[],
    now: number,
    apply: (fresh: readonly CounterCall[]) => CounterVerdict[] | Promise<CounterVerdict[]>,
  ): CounterVerdict[] | Promise<CounterVerdict[]> {
    // Most batches carry no id: nothing to look up.
    if (!calls.some((call) => opOf(call) !== undefined)) return apply(calls);
    this.expire(now);
    const fresh: CounterCall[] = [];
    /** Per call: its place in `fresh`, or the id whose answer it repeats. */
    const plan: (number | string)[] = [];
    const firstOf = new Map<string, number>();
    for (const call of calls) {
      const op = opOf(call);
      if (op !== undefined && (this.ops.has(op) || firstOf.has(op))) {
        plan.push(op);
        continue;
      }
      if (op !== undefined) firstOf.set(op, fresh.length);
      plan.push(fresh.length);
      fresh.push(call);
    }
    const answer = (verdicts: CounterVerdict[]): CounterVerdict[] => {
      for (const [op, i] of firstOf) this.remember(op, verdicts[i], now);
      return plan.map((step) => (typeof step === "number" ? verdicts[step] : (this.ops.get(step)?.verdict ?? verdicts[firstOf.get(step) as number])));
    };
    const verdicts = fresh.length === 0 ? [] : apply(fresh);
    return verdicts instanceof Promise ? verdicts.then(answer) : answer(verdicts);
  }

  private remember(op: string, verdict: CounterVerdict, now: number): void {
    const bytes = RECORD_BYTES + 2 * op.length + DECISION_BYTES * verdict.decisions.length;
    this.ops.set(op, { at: now, verdict, bytes });
    this.used += bytes;
    // Full: the oldest ids go first (a retry comes within seconds, the oldest are the least likely to come again).
    while (this.used > this.capacity) this.dropOldest();
  }

  private expire(now: number): void {
    for (const [, applied] of this.ops) {
      if (now - applied.at < this.keepMs) return;
      this.dropOldest();
    }
  }

  private dropOldest(): void {
    const [op, applied] = this.ops.entries().next().value as [string, Applied];
    this.ops.delete(op);
    this.used -= applied.bytes;
  }
}
