/**
 * Concurrency slots (docs/concurrency.md): per counter, the requests in
 * flight, each a holder with a lease expiry. A slot is freed by its
 * release, or when its lease runs out (the isolate that held it vanished).
 * Every change is written to SQLite in the same event, before the answer
 * leaves the object, so a restarted object still counts every slot held.
 */
import type { Decision, Step } from "../../algorithms/types.ts";
import { SLOT_TABLES } from "../../stored/counter-tables.ts";
import type { CounterVerdict, DecideCall, LimitCall, SlotCall } from "../../stored/wire-calls.ts";
import { LazyTable } from "./lazy-table.ts";

/** What a rejected request is told to wait: a slot may free at any moment, so the shortest whole second. */
export const SLOT_RETRY_MS = 1000;

/**
 * Slot tables by storage id (counter key, U+0001, limit id), read from
 * storage on first use; without `sql`, in memory only (the tests' plain
 * counters, test/support/plain-counters.ts).
 *
 * @example
 * const book = new SlotBook(ctx.storage.sql);
 * book.decide(id, 5, "holder-1", now, 1).allowed; // true while fewer than 5 are held
 * book.take(id, "holder-1", now, 60_000);
 * book.release(id, "holder-1");
 */
export class SlotBook {
  private readonly store: Pick<SqlStorage, "exec"> | undefined;
  /** Made with the first slot taken (lazy-table.ts): a key never limited by concurrency writes no table. */
  private readonly table: LazyTable | undefined;
  private readonly tables = new Map<string, Map<string, number>>();

  constructor(sql?: Pick<SqlStorage, "exec">) {
    this.store = sql;
    this.table = sql === undefined ? undefined : new LazyTable((query, ...bindings) => sql.exec(query, ...bindings).toArray() as never, SLOT_TABLES);
  }

  /** The storage, once it has the table (undefined: in memory only, or no slot ever taken). */
  private get sql(): Pick<SqlStorage, "exec"> | undefined {
    return this.table?.exists() === true ? this.store : undefined;
  }

  /** Whether `holder` may hold one of `n` slots now (it may if it holds one already); `cost` 0 only reads. */
  decide(id: string, n: number, holder: string, now: number, cost: number): Decision {
    const table = this.live(id, now);
    const held = table.size;
    const allowed = cost === 0 || table.has(holder) || held < n;
    const taking = cost > 0 && allowed && !table.has(holder) ? 1 : 0;
    return {
      allowed,
      limit: n,
      remaining: Math.max(0, n - held - taking),
      resetAfterMs: held + taking > 0 ? SLOT_RETRY_MS : 0,
      retryAfterMs: allowed ? 0 : SLOT_RETRY_MS,
      effectiveWindowMs: SLOT_RETRY_MS,
    };
  }

  /** Give `holder` a slot (or renew its own) until `now + leaseMs`. */
  take(id: string, holder: string, now: number, leaseMs: number): void {
    const expiresAt = now + leaseMs;
    this.live(id, now).set(holder, expiresAt);
    this.table?.make();
    this.sql?.exec("INSERT OR REPLACE INTO slots (id, holder, expires_at) VALUES (?, ?, ?)", id, holder, expiresAt);
  }

  /** Extend `holder`'s lease; false when it holds no slot (released, or expired and maybe given to another). */
  renew(id: string, holder: string, now: number, leaseMs: number): boolean {
    if (!this.live(id, now).has(holder)) return false;
    this.take(id, holder, now, leaseMs);
    return true;
  }

  /** Free `holder`'s slot; nothing happens if it holds none. */
  release(id: string, holder: string): void {
    const table = this.tables.get(id);
    if (table?.delete(holder) !== true) return;
    this.sql?.exec("DELETE FROM slots WHERE id = ? AND holder = ?", id, holder);
    if (table.size === 0) this.tables.delete(id);
  }

  /** Drop every expired slot from storage and memory (the object's alarm calls it). */
  sweep(now: number): void {
    this.sql?.exec("DELETE FROM slots WHERE expires_at <= ?", now);
    for (const [id, table] of this.tables) {
      for (const [holder, expiresAt] of table) if (expiresAt <= now) table.delete(holder);
      if (table.size === 0) this.tables.delete(id);
    }
  }

  /** Slots held in storage, expired or not (0 without storage: see `tables` then). */
  count(): number {
    const [row] = this.sql?.exec<{ n: number }>("SELECT count(*) AS n FROM slots").toArray() ?? [];
    return row?.n ?? [...this.tables.values()].reduce((n, table) => n + table.size, 0);
  }

  /** The unexpired slots of `id`, loaded from storage on first use; expired ones are dropped here. */
  private live(id: string, now: number): Map<string, number> {
    let table = this.tables.get(id);
    if (table === undefined) {
      table = new Map();
      for (const row of this.sql?.exec<{ holder: string; expires_at: number }>("SELECT holder, expires_at FROM slots WHERE id = ?", id) ?? []) {
        table.set(row.holder, row.expires_at);
      }
      this.tables.set(id, table);
    }
    for (const [holder, expiresAt] of table) {
      if (expiresAt > now) continue;
      table.delete(holder);
      this.sql?.exec("DELETE FROM slots WHERE id = ? AND holder = ?", id, holder);
    }
    return table;
  }
}

/** What deciding and settling slots needs of a SlotBook (the core is lent one: counter-core.ts). */
export type SlotTable = Pick<SlotBook, "decide" | "take" | "renew" | "release">;

/** The object's rate windows, as a call with slots needs them. */
export interface WindowAccess {
  step(limit: LimitCall, cost: number): Step<unknown>;
  commit(limit: LimitCall, state: unknown): void;
}

/**
 * Decide a call whose limits include concurrency ones: all or nothing, like
 * any call. Without a `slot` (a caller that could never release one) the
 * call only reads.
 *
 * @example
 * decideWithSlots({ key, limits: [slotsLimit], cost: 1, slot: { holder, leaseMs: 60_000 } }, book, windows, "\u0001", now);
 */
export function decideWithSlots(call: DecideCall, book: SlotTable, windows: WindowAccess, sep: string, now: number): CounterVerdict {
  const holder = call.slot?.holder ?? "";
  const cost = call.slot === undefined ? 0 : call.cost;
  const steps = call.limits.map((limit) => (limit.concurrency ? undefined : windows.step(limit, cost)));
  const judge = (limit: LimitCall, hits: number): Decision =>
    limit.concurrency ? book.decide(call.key + sep + limit.id, limit.limit, holder, now, hits) : windows.step(limit, hits).decision;
  const decisions = call.limits.map((limit, i) => steps[i]?.decision ?? judge(limit, cost));
  const allowed = decisions.every((decision) => decision.allowed);
  // Nothing is taken from a rejected call, so the limits that would have allowed report how they really stand.
  if (!allowed) return { allowed, decisions: call.limits.map((limit, i) => (decisions[i].allowed ? judge(limit, 0) : decisions[i])) };
  if (cost > 0 && call.slot !== undefined) {
    call.limits.forEach((limit, i) => {
      const step = steps[i];
      if (step !== undefined) windows.commit(limit, step.state);
      else book.take(call.key + sep + limit.id, holder, now, call.slot?.leaseMs ?? 0);
    });
  }
  return { allowed, decisions };
}

/**
 * Release or renew the slots of `call.slot.holder` on every concurrency limit of the call.
 *
 * @example
 * settleSlots({ kind: "release", key, limits, cost: 0, slot }, book, "\u0001", now); // { allowed: true, decisions: [] }
 */
export function settleSlots(call: SlotCall, book: SlotTable, sep: string, now: number): CounterVerdict {
  let allowed = true;
  for (const limit of call.limits) {
    if (!limit.concurrency) continue;
    const id = call.key + sep + limit.id;
    if (call.kind === "release") book.release(id, call.slot.holder);
    else if (!book.renew(id, call.slot.holder, now, call.slot.leaseMs)) allowed = false;
  }
  return { allowed, decisions: [] };
}
