/**
 * Refunds that ride with the next call (docs/llm.md, "Costs and limits"):
 * a token budget's refund, once its answer ended, waits up to
 * REFUND_CARRY_MS for the next batch this isolate sends to the same object
 * and goes first in it, so the object applies it before that batch's
 * decisions and one RPC and one storage commit serve both. A refund no
 * batch took in time is sent on its own, as it would have been at once.
 *
 * Only refunds wait: a refund sent late only leaves a budget looking
 * fuller than it is for a moment (never past it), while an extra charge
 * sent late would let other requests in past the budget meanwhile.
 *
 * As in the coalescer (coalescer.ts), no request settles or wakes another's
 * promise: a parked refund is plain data. The request that parked it keeps
 * the responsibility: its own timer looks whether a batch took it, and
 * sends it alone if none did, or if the batch that took it failed. A refund
 * sent twice (a batch whose answer was lost, then alone) is applied once:
 * it carries its `op` (docs/reliability.md, "Exactly once").
 */
import type { CounterCall } from "../stored/wire-calls.ts";

/**
 * The longest a refund waits for a batch to ride with. A key's next
 * request from the same isolate usually comes sooner when the key is busy,
 * which is when the RPC saved counts; other isolates see the refund at
 * most this much later.
 */
export const REFUND_CARRY_MS = 100;

/** How long a refund taken by a batch is left to it before its request sends it alone anyway (the batch's request may have ended). */
export const RIDING_GIVE_UP_MS = 5_000;

/** One request's refunds to one object. Plain data: no request's promise or callback is reachable from it. */
export interface ParkedRefunds {
  readonly object: string;
  readonly calls: readonly CounterCall[];
  /** `parked`: waiting for a batch; `riding`: in a batch on its way; `delivered`: the object answered that batch; `alone`: its request sends it. */
  state: "parked" | "riding" | "delivered" | "alone";
}

/** The refunds a batch carries, first in it, and how to read or undo it. */
export interface CarryingBatch {
  readonly calls: CounterCall[];
  /** Their answers left out: the callers' own. */
  answers<T>(verdicts: readonly T[]): T[];
  /** The object answered: the refunds are applied. */
  delivered(): void;
  /** The batch failed: the refunds wait again, for their own requests to send. */
  failed(): void;
}

/**
 * The refunds of one isolate waiting for a batch, per object.
 *
 * @example
 * const parked = refunds.park("api/shard/3", [refundCall]);
 * const batch = refunds.attach("api/shard/3", [decideCall]); // [refundCall, decideCall]
 */
export class CarriedRefunds {
  private readonly parked = new Map<string, ParkedRefunds[]>();

  /** Objects with refunds waiting. */
  get size(): number {
    return this.parked.size;
  }

  /** Leave `calls` (refunds, with their `op`) for the next batch to `object`. */
  park(object: string, calls: readonly CounterCall[]): ParkedRefunds {
    const entry: ParkedRefunds = { object, calls, state: "parked" };
    this.insert(entry);
    return entry;
  }

  /** Take `entry` out to be sent alone by its own request: no batch takes it after this, a failed one does not park it again. */
  unpark(entry: ParkedRefunds): void {
    if (entry.state === "parked") {
      const list = this.parked.get(entry.object) as ParkedRefunds[];
      list.splice(list.indexOf(entry), 1);
      if (list.length === 0) this.parked.delete(entry.object);
    }
    entry.state = "alone";
  }

  /**
   * `calls` to `object` with every refund waiting for it placed first, or
   * undefined when none waits. Relayed calls go to a region's copy, never
   * the refunds' object, so they carry none.
   *
   * @example
   * const batch = refunds.attach(name, calls); // send batch.calls, then batch.answers(verdicts)
   */
  attach(object: string, calls: readonly CounterCall[]): CarryingBatch | undefined {
    const taken = this.parked.get(object);
    if (taken === undefined) return undefined;
    this.parked.delete(object);
    const riding: CounterCall[] = [];
    for (const entry of taken) {
      entry.state = "riding";
      riding.push(...entry.calls);
    }
    const count = riding.length;
    return {
      calls: [...riding, ...calls],
      answers: (verdicts) => verdicts.slice(count),
      delivered: () => {
        for (const entry of taken) if (entry.state === "riding") entry.state = "delivered";
      },
      failed: () => {
        for (const entry of taken) {
          if (entry.state !== "riding") continue;
          entry.state = "parked";
          this.insert(entry);
        }
      },
    };
  }

  private insert(entry: ParkedRefunds): void {
    const list = this.parked.get(entry.object);
    if (list === undefined) this.parked.set(entry.object, [entry]);
    else list.push(entry);
  }
}

/**
 * From the timer of the request that parked `entry`: once REFUND_CARRY_MS
 * has passed, `alone` sends its refunds unless a batch delivered them; a
 * batch that took them and failed parks them again, and one still out
 * after RIDING_GIVE_UP_MS (its request may have ended) is not waited for:
 * they are sent again, their `op` keeps them applied once.
 *
 * @example
 * defer(sendUnlessCarried(refunds, refunds.park(name, calls), (calls) => send(name, calls)));
 */
export async function sendUnlessCarried(book: CarriedRefunds, entry: ParkedRefunds, alone: (calls: readonly CounterCall[]) => Promise<unknown>): Promise<void> {
  await sleep(REFUND_CARRY_MS);
  for (let waited = 0; entry.state === "riding" && waited < RIDING_GIVE_UP_MS; waited += REFUND_CARRY_MS) await sleep(REFUND_CARRY_MS);
  if (entry.state === "delivered") return;
  book.unpark(entry);
  await alone(entry.calls);
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
