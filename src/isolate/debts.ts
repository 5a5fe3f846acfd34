/**
 * Hits this isolate allowed on its own while a counter's object could not
 * answer (FAILURE_MODE=local, docs/reliability.md, "Failure mode"): debts
 * owed to that object for that counter (its key and windows). Each is paid
 * with the counter's next call to its object, as an `absorb` call placed
 * just before it in the same batch: the way a lease holder reports the hits
 * it allowed (src/durable/counters/leases/lease-holder.ts, src/durable/counters/leases/precount-sync.ts),
 * so no new call shape crosses the wire. The object takes them
 * unconditionally, all that its windows can hold, before it decides the
 * call, so its count includes what the isolate allowed and the isolate's
 * count never has to overrule it. A batch that fails gives its debts back
 * for the next one.
 */
import { homeOf } from "../durable/counters/regions.ts";
import type { AbsorbCall, CounterCall, CounterVerdict } from "../stored/wire-calls.ts";
import { newOp } from "./op-ids.ts";

/** Counters with debts kept per isolate; past it the oldest debt is forgotten (its hits are then never reported). */
export const DEBT_KEYS = 10_000;

interface Debt {
  /** The object owed (counterOwner). */
  readonly owner: string;
  readonly call: AbsorbCall;
  /** From when the hits no longer count in any window (the isolate's own count has forgotten them). */
  readonly until: number;
}

/** Hits owed by one `owe`, to take back with `cancel` while they have not been sent. */
export interface DebtToken {
  readonly id: string;
  readonly epoch: number;
  readonly cost: number;
}

/** A batch with the debts it pays: the calls to send, and how to read or undo it. */
export interface OwingBatch {
  readonly calls: CounterCall[];
  /** The answers to the callers' calls, the debts' own left out. */
  answers(verdicts: readonly CounterVerdict[]): CounterVerdict[];
  /** The batch failed: its debts are owed again. */
  restore(): void;
}

/**
 * The object that owns `call`'s counter: the one it is sent to, or for a
 * call relayed through a region's copy, the home (docs/placement.md).
 *
 * @example
 * counterOwner("api/shard/3@weur", relayCall); // "api/shard/3"
 */
export function counterOwner(objectName: string, call: CounterCall): string {
  return call.kind === "relay" ? homeOf(objectName) : objectName;
}

/**
 * The debts of one isolate.
 *
 * @example
 * debts.owe("api/shard/3", call, quietAt);
 * const batch = debts.attach("api/shard/3", [call], Date.now()); // [absorb of the debt, call]
 */
export class DebtBook {
  private readonly debts = new Map<string, Debt>();
  /** Per debt, the epoch it was owed in: a new one each time it is sent, so a cancel names only hits never sent. */
  private readonly epochs = new Map<string, number>();
  private epoch = 0;

  /** Counters with debts. */
  get size(): number {
    return this.debts.size;
  }

  /**
   * Whether `call`'s counter at `ownerName` (counterOwner names it) has a
   * debt at `now`, or had one paid whose hits still count: its calls are
   * then decided by the owner itself, not from a region's lease of it
   * (src/limiter/owed-home.ts), since a lease handed out before the debt
   * was paid would let its holder allow past the limit.
   *
   * @example
   * if (debts.owes(homeOf(name), call, Date.now())) name = homeOf(name);
   */
  owes(ownerName: string, call: CounterCall, now: number): boolean {
    return (this.debts.get(debtId(ownerName, call))?.until ?? -Infinity) > now;
  }

  /**
   * Owe `call.cost` hits, allowed here for `call` (addressed to
   * `objectName`), to the counter's object, until `until`. Concurrency
   * windows are left out: their slots are the object's.
   *
   * @example
   * debts.owe(objectName, call, local.quietAt(objectName, call));
   */
  owe(objectName: string, call: CounterCall, until: number): DebtToken | undefined {
    const limits = call.limits.filter((limit) => limit.concurrency !== true);
    if (call.cost <= 0 || limits.length === 0) return undefined;
    const owner = counterOwner(objectName, call);
    const id = debtId(owner, call);
    this.add(id, { owner, call: { kind: "absorb", key: call.key, limits, cost: call.cost }, until });
    return { id, epoch: this.epochs.get(id) as number, cost: call.cost };
  }

  /**
   * Take back the hits `token` owed, if they have not been sent to the
   * object since (docs/reliability.md, "Late answers": the timed-out call
   * they were allowed for reached its object after all, which charged it).
   * Once sent, they stay paid: counted twice at worst, never lost.
   *
   * @example
   * const token = debts.owe(name, call, until); // … its late answer says allowed:
   * if (token !== undefined) debts.cancel(token);
   */
  cancel(token: DebtToken): void {
    const debt = this.debts.get(token.id);
    if (debt === undefined || this.epochs.get(token.id) !== token.epoch || debt.call.cost < token.cost) return;
    this.debts.set(token.id, { ...debt, call: { ...debt.call, cost: debt.call.cost - token.cost } });
  }

  /**
   * The batch that pays, with `calls` to `objectName`, the debts of their
   * counters (each absorb just before its counter's first call) and every
   * other debt owed to that object (first), taking them out of the book;
   * undefined when none is owed. Debts past their
   * `until` are dropped. Any call to the owner may carry them, a
   * pre-counting sync included; relayed calls carry none (a region's copy
   * is not the owner: owed-home.ts sends them to it).
   *
   * @example
   * const batch = debts.attach(name, calls, now); // send batch.calls, then batch.answers(verdicts)
   */
  attach(objectName: string, calls: readonly CounterCall[], now: number): OwingBatch | undefined {
    if (this.debts.size === 0) return undefined;
    const sent: CounterCall[] = [];
    const mine: boolean[] = [];
    const paid: [string, Debt][] = [];
    for (const call of calls) {
      const id = call.kind === "relay" ? undefined : debtId(objectName, call);
      const debt = id === undefined ? undefined : this.debts.get(id);
      if (id !== undefined && debt !== undefined) {
        if (debt.until <= now) this.forget(id);
        else if (debt.call.cost > 0) {
          // With an id, kept if the payment fails and is sent again: the object applies it once (docs/reliability.md, "Exactly once").
          const payment = debt.call.op === undefined ? { ...debt.call, op: newOp() } : debt.call;
          sent.push(payment);
          mine.push(false);
          paid.push([id, { owner: debt.owner, call: payment, until: debt.until }]);
          // Paid, and kept at 0 hits until they stop counting (see `owes`).
          this.debts.set(id, { owner: debt.owner, call: withoutOp({ ...debt.call, cost: 0 }), until: debt.until });
          this.epochs.set(id, ++this.epoch);
        }
      }
      sent.push(call);
      mine.push(true);
    }
    // The object's other debts ride along too (their counters' own calls may never come): first, as they touch none of these calls.
    for (const [id, debt] of this.debts) {
      if (debt.owner !== objectName || debt.call.cost <= 0) continue;
      if (debt.until <= now) {
        this.forget(id);
        continue;
      }
      const payment = debt.call.op === undefined ? { ...debt.call, op: newOp() } : debt.call;
      sent.unshift(payment);
      mine.unshift(false);
      paid.push([id, { owner: debt.owner, call: payment, until: debt.until }]);
      this.debts.set(id, { owner: debt.owner, call: withoutOp({ ...debt.call, cost: 0 }), until: debt.until });
      this.epochs.set(id, ++this.epoch);
    }
    if (paid.length === 0) return undefined;
    return {
      calls: sent,
      answers: (verdicts) => verdicts.filter((_, i) => mine[i]),
      restore: () => {
        for (const [id, debt] of paid) this.add(id, debt);
      },
    };
  }

  // Hits owed to one counter add up; the entry moves to the end, so the first is the one to forget.
  /**
   * Every debt still unpaid at `now`, as one batch of payments per object
   * owed but those in `skip`, taken out of the book like `attach` does (`restore` gives a
   * batch's back if it fails): what an isolate sends on its own, without
   * waiting for the counters' next calls, so that an isolate evicted
   * after its objects came back owes nothing (docs/reliability.md,
   * "Isolates come and go").
   *
   * @example
   * for (const [name, batch] of debts.due(Date.now())) send(name, batch.calls).catch(() => batch.restore());
   */
  due(now: number, skip: ReadonlySet<string> = new Set()): Map<string, OwingBatch> {
    const byOwner = new Map<string, [string, Debt][]>();
    for (const [id, debt] of this.debts) {
      if (debt.until <= now) this.forget(id);
      else if (debt.call.cost > 0 && !skip.has(debt.owner)) {
        let list = byOwner.get(debt.owner);
        if (list === undefined) byOwner.set(debt.owner, (list = []));
        list.push([id, debt]);
      }
    }
    const batches = new Map<string, OwingBatch>();
    for (const [owner, list] of byOwner) {
      const paid: [string, Debt][] = list.map(([id, debt]) => {
        const payment = debt.call.op === undefined ? { ...debt.call, op: newOp() } : debt.call;
        this.debts.set(id, { owner, call: withoutOp({ ...debt.call, cost: 0 }), until: debt.until });
        this.epochs.set(id, ++this.epoch);
        return [id, { owner, call: payment, until: debt.until }];
      });
      batches.set(owner, {
        calls: paid.map(([, debt]) => debt.call),
        answers: () => [],
        restore: () => {
          for (const [id, debt] of paid) this.add(id, debt);
        },
      });
    }
    return batches;
  }

  // A payment given back keeps its id while no hit was owed since; merged with new hits it is a new payment (a new id),
  // which an object that applied the first may charge again: counted twice at worst, never lost.
  private add(id: string, debt: Debt): void {
    const before = this.debts.get(id);
    this.debts.delete(id);
    const owedBefore = before?.call.cost ?? 0;
    const call = owedBefore > 0 ? withoutOp({ ...debt.call, cost: debt.call.cost + owedBefore }) : debt.call;
    this.debts.set(id, { owner: debt.owner, call, until: Math.max(debt.until, before?.until ?? 0) });
    if (!this.epochs.has(id)) this.epochs.set(id, ++this.epoch);
    if (this.debts.size > DEBT_KEYS) this.forget(this.debts.keys().next().value as string);
  }

  private forget(id: string): void {
    this.debts.delete(id);
    this.epochs.delete(id);
  }
}

function withoutOp(call: AbsorbCall): AbsorbCall {
  const { op: _op, ...rest } = call;
  return rest;
}

function rateIds(call: CounterCall): string {
  let ids = "";
  for (const limit of call.limits) if (limit.concurrency !== true) ids += `\u0001${limit.id}`;
  return ids;
}

// The counter's owner, key and rate windows: a changed rule starts a fresh debt rather than paying another's.
function debtId(ownerName: string, call: CounterCall): string {
  return `${ownerName}\n${call.key}${rateIds(call)}`;
}
