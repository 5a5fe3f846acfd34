/**
 * Breaches this isolate answered from its certain-block cache
 * (docs/rules.md, "Penalty box"): a hit of a key under a penalty block,
 * refused here without asking the counter object, is still a breach the
 * block must escalate for. Each is counted per counter (its key and penalty
 * windows) and carried, as `breaches`, by the counter's next call to its
 * object, the way debts are (debts.ts): no new call, and a failed batch
 * gives them back for the next one. The cache asks the object again before
 * a penalty block ends (block-cache.ts, `renewAt`), so a client that keeps
 * hammering has its breaches counted while the block still holds.
 */
import type { CounterCall, DecideCall } from "../stored/wire-calls.ts";

/**
 * Bytes of breach counts one isolate keeps (docs/reliability.md, "Bounded
 * memory"): weighed in bytes, not entries, as cached blocks are, so long keys
 * cannot take an isolate's memory; past it the oldest count is forgotten (its
 * breaches never reach the object). 2 MiB holds over 10,000 counts of short keys.
 */
export const BREACH_BYTES = 2 * 1024 * 1024;

// A count's weight beyond its id's characters (two bytes each): the map entry and the number.
const ENTRY_BYTES = 64;

/**
 * The bytes a breach count of counter `id` is weighed at.
 *
 * @example
 * breachBytes("k\u0001fw:2:1000:2"); // 90: 64 + 2 × 13 characters
 */
export function breachBytes(id: string): number {
  return ENTRY_BYTES + 2 * id.length;
}

/** Calls with the breaches they carry, and how to undo it. */
export interface CarryingBatch {
  readonly calls: readonly CounterCall[];
  /** The batch failed: its breaches are counted again. */
  restore(): void;
}

/**
 * Whether `call` is a hit on a penalty limit: one that is a breach when a
 * block holds.
 *
 * @example
 * breachable({ key: "k", cost: 1, limits: [{ ...limit, penalty }] }); // true
 */
export function breachable(call: CounterCall): boolean {
  if (call.cost <= 0 || (call.kind !== undefined && call.kind !== "decide")) return false;
  for (const limit of call.limits) if (limit.penalty !== undefined) return true;
  return false;
}

/**
 * The breaches of one isolate.
 *
 * @example
 * breaches.count(call); // a hit answered from a cached block
 * const batch = breaches.attach(calls); // send batch.calls; on failure batch.restore()
 */
export class BreachBook {
  private readonly counts = new Map<string, number>();
  /** The bytes the counts are weighed at (breachBytes), at most `capacity`. */
  private held = 0;
  private readonly capacity: number;

  /** `capacity`: the bytes kept (default BREACH_BYTES). */
  constructor(capacity = BREACH_BYTES) {
    this.capacity = capacity;
  }

  /** The bytes the counts kept are weighed at. */
  get bytes(): number {
    return this.held;
  }

  /** Counters with breaches waiting. */
  get size(): number {
    return this.counts.size;
  }

  /**
   * Count one breach of `call`'s counter (a hit on a penalty limit refused
   * from a cached block); other calls count nothing.
   *
   * @example
   * breaches.count(call);
   */
  count(call: CounterCall): void {
    if (breachable(call)) this.add(breachId(call), 1);
  }

  /**
   * `calls` with the breaches of their counters carried by the first call
   * of each (taken out of the book); undefined when none carries any.
   *
   * @example
   * const batch = breaches.attach(calls) ?? { calls, restore() {} };
   */
  attach(calls: readonly CounterCall[]): CarryingBatch | undefined {
    if (this.counts.size === 0) return undefined;
    let sent: CounterCall[] | undefined;
    const taken: [string, number][] = [];
    calls.forEach((call, i) => {
      if (!breachable(call)) return;
      const id = breachId(call);
      const count = this.counts.get(id);
      if (count === undefined) return;
      this.counts.delete(id);
      this.held -= breachBytes(id);
      taken.push([id, count]);
      sent ??= [...calls];
      const decide = call as DecideCall; // breachable: a plain decide call
      sent[i] = { ...decide, breaches: count + (decide.breaches ?? 0) };
    });
    if (sent === undefined) return undefined;
    return {
      calls: sent,
      restore: () => {
        for (const [id, count] of taken) this.add(id, count);
      },
    };
  }

  // Counts of one counter add up; the entry moves to the end, so the first is the one to forget.
  private add(id: string, count: number): void {
    const weight = breachBytes(id);
    if (weight > this.capacity) return;
    const before = this.counts.get(id);
    if (before === undefined) this.held += weight;
    else this.counts.delete(id);
    this.counts.set(id, (before ?? 0) + count);
    while (this.held > this.capacity) {
      const oldest = this.counts.keys().next().value as string;
      this.counts.delete(oldest);
      this.held -= breachBytes(oldest);
    }
  }
}

// The counter's key and penalty windows: the block is the object's for that key and limit, whatever the call's cost.
function breachId(call: CounterCall): string {
  let id = call.key;
  for (const limit of call.limits) if (limit.penalty !== undefined) id += `\u0001${limit.id}`;
  return id;
}
