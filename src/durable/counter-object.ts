/**
 * CounterObject: the Durable Object that owns a set of counters. It runs one
 * event at a time, so each decision reads and writes its counters without
 * locks and without races; it answers from memory and writes through to
 * SQLite for windows of a minute or longer.
 */
import { DurableObject } from "cloudflare:workers";
import { getAlgorithm, reserve } from "../algorithms/index.ts";
import type { Decision, Step } from "../algorithms/types.ts";
import { CounterStore, DURABLE_WINDOW_MS } from "./counter-store.ts";
import type { AbsorbCall, CounterCall, CounterVerdict, LimitCall, ReserveCall } from "./protocol.ts";

/** The shortest gap between sweeps of idle counters (a sweep waits for the first counter that can be idle). */
export const SWEEP_INTERVAL_MS = 10_000;

interface Entry {
  state: unknown;
  idleAt: number;
}

// Separates counter key from limit id in storage ids; counter keys are JSON
// text, in which a raw U+0001 cannot occur, so the split is unambiguous.
const SEP = "\u0001";

/**
 * Owns counters; placement (`src/durable/placement.ts`) decides which keys it holds.
 *
 * @example
 * const stub = env.COUNTERS.getByName("api/shard/3");
 * const [verdict] = await stub.decide([{ key, limits, cost: 1 }]);
 */
export class CounterObject extends DurableObject {
  private readonly store: CounterStore;
  /** counter key -> limit id -> state. */
  private readonly counters = new Map<string, Map<string, Entry>>();
  /** When the sweep alarm is set for (undefined: none set). */
  private sweepAt: number | undefined;
  /**
   * The earliest `idleAt` among counters committed since the last sweep (it
   * may have moved on since; then the sweep finds nothing and looks again).
   */
  private earliestIdleAt = Infinity;
  /** `decide` RPCs served since this instance started (tests count edge savings with it). */
  private calls = 0;
  /**
   * Durable windows changed in this event, written once each when the event
   * ends: a batch of 100 hits on one counter is one row write, not 100.
   */
  private readonly unsaved = new Map<string, Entry>();

  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env as never);
    this.store = new CounterStore(ctx.storage.sql);
    const now = Date.now();
    for (const stored of this.store.loadActive(now)) {
      const at = stored.id.indexOf(SEP);
      this.entriesOf(stored.id.slice(0, at)).set(stored.id.slice(at + 1), { state: stored.state, idleAt: stored.idleAt });
      this.earliestIdleAt = Math.min(this.earliestIdleAt, stored.idleAt);
    }
    if (this.counters.size > 0) this.scheduleSweep(now);
  }

  /**
   * Decide a batch of calls in order, exactly as if each came alone. Within a
   * call all windows are decided together: if any rejects, none consumes.
   *
   * @example
   * await stub.decide([{ key, limits: [perSecond, perDay], cost: 1 }]);
   */
  decide(calls: readonly CounterCall[]): CounterVerdict[] {
    this.calls += 1;
    const now = Date.now();
    try {
      const verdicts = calls.map((call) => this.decideCall(call, now));
      this.scheduleSweep(now);
      return verdicts;
    } finally {
      // Same event, so the same implicit transaction: written before the answer leaves.
      this.saveChanged();
    }
  }

  private decideCall(call: CounterCall, now: number): CounterVerdict {
    switch (call.kind) {
      case undefined:
      case "decide":
        return this.decideOne(call, now);
      case "reserve":
        return this.reserveOne(call, now);
      case "absorb":
        return this.absorb(call, now);
      default:
        return unknownKind(call);
    }
  }

  /**
   * Read a counter without consuming from it.
   *
   * @example
   * const verdict = await stub.peek({ key, limits, cost: 0 });
   */
  peek(call: CounterCall): CounterVerdict {
    return this.decideOne({ ...call, cost: 0 }, Date.now());
  }

  /**
   * Forget every window of a counter key, in memory and in storage.
   *
   * @example
   * await stub.reset(key);
   */
  reset(key: string): void {
    this.counters.delete(key);
    this.store.deletePrefix(key + SEP);
  }

  /**
   * Sizes for tests and metrics: counters in memory, rows in storage, and `decide` calls served.
   *
   * @example
   * const { memory, stored } = await stub.stats();
   */
  stats(): { memory: number; stored: number; calls: number } {
    let memory = 0;
    for (const windows of this.counters.values()) memory += windows.size;
    return { memory, stored: this.store.count(), calls: this.calls };
  }

  /** Sweeps idle counters so memory and storage stay bounded by active keys. */
  override async alarm(): Promise<void> {
    this.sweepAt = undefined;
    const now = Date.now();
    let earliest = Infinity;
    for (const [key, windows] of this.counters) {
      for (const [id, entry] of windows) {
        if (entry.idleAt <= now) windows.delete(id);
        else earliest = Math.min(earliest, entry.idleAt);
      }
      if (windows.size === 0) this.counters.delete(key);
    }
    this.earliestIdleAt = earliest;
    this.store.deleteIdle(now);
    this.scheduleSweep(now);
  }

  /**
   * Take a pre-counted batch of hits one at a time while they fit; report
   * the state after. Charging k hits at once at one instant is exactly k
   * single hits then (test/algorithms/batched-cost.test.ts), so whether k
   * fit only turns false as k grows, and the most that fit is found by
   * bisection: a few decisions per flush, not one per hit (a flush from a
   * busy isolate carries hundreds, and the object's time is the scarce one).
   */
  private absorb(call: AbsorbCall, now: number): CounterVerdict {
    let accepted = 0;
    if (this.fits(call, call.cost, now)) accepted = call.cost;
    else {
      // Invariant: `accepted` hits fit, `over` do not.
      let over = call.cost;
      while (over - accepted > 1) {
        const mid = accepted + Math.floor((over - accepted) / 2);
        if (this.fits(call, mid, now)) accepted = mid;
        else over = mid;
      }
    }
    if (accepted > 0) this.decideOne({ ...call, cost: accepted }, now);
    return { ...this.decideOne({ ...call, cost: 0 }, now), accepted };
  }

  /** Whether `cost` hits on every window of `call` would be allowed now (nothing consumed). */
  private fits(call: CounterCall, cost: number, now: number): boolean {
    const windows = this.counters.get(call.key);
    return call.limits.every((limit) => this.step(limit, windows, now, cost).decision.allowed);
  }

  /**
   * Take the first slot within `maxDelayMs` at which every window allows the
   * call (see `reserve`). The object runs one event at a time, so the slot
   * is taken before the next call is looked at: slots never overlap.
   */
  private reserveOne(call: ReserveCall, now: number): CounterVerdict {
    const windows = this.counters.get(call.key);
    const result = reserve(
      call.limits.map((limit) => ({
        algorithm: getAlgorithm(limit.algorithm),
        state: windows?.get(limit.id)?.state,
        limit,
        reserve: limit.reserve === true,
      })),
      now,
      call.cost,
      call.maxDelayMs,
    );
    const verdict = this.settle(call, windows, result.steps, result.allowed, now);
    return result.allowed ? { ...verdict, delayMs: result.delayMs } : verdict;
  }

  private decideOne(call: CounterCall, now: number): CounterVerdict {
    const windows = this.counters.get(call.key);
    const steps = call.limits.map((limit) => this.step(limit, windows, now, call.cost));
    return this.settle(
      call,
      windows,
      steps,
      steps.every((step) => step.decision.allowed),
      now,
    );
  }

  /** Commit the windows' steps if the call is allowed (and consumes); the verdict either way. */
  private settle(call: CounterCall, windows: Map<string, Entry> | undefined, steps: readonly Step<unknown>[], allowed: boolean, now: number): CounterVerdict {
    if (!allowed) {
      // Nothing was consumed, so report the windows that would have allowed
      // as they really stand, not as if the hit had been taken.
      const decisions = steps.map((step, i) => (step.decision.allowed ? this.peekDecision(call.limits[i], windows, now) : step.decision));
      return { allowed, decisions };
    }
    if (call.cost > 0) {
      const target = windows ?? this.entriesOf(call.key);
      for (let i = 0; i < steps.length; i++) this.commit(call.key, target, call.limits[i], steps[i].state);
    }
    return { allowed, decisions: steps.map((step) => step.decision) };
  }

  private peekDecision(limit: LimitCall, windows: Map<string, Entry> | undefined, now: number): Decision {
    return this.step(limit, windows, now, 0).decision;
  }

  /** One window's step for `cost` hits now, from its current state (nothing committed). */
  private step(limit: LimitCall, windows: Map<string, Entry> | undefined, now: number, cost: number): Step<unknown> {
    return getAlgorithm(limit.algorithm).decide(windows?.get(limit.id)?.state, limit, now, cost);
  }

  private commit(key: string, windows: Map<string, Entry>, limit: LimitCall, state: unknown): void {
    const idleAt = getAlgorithm(limit.algorithm).idleAt(state, limit);
    const entry = { state, idleAt };
    windows.set(limit.id, entry);
    if (idleAt < this.earliestIdleAt) this.earliestIdleAt = idleAt;
    if (limit.windowMs >= DURABLE_WINDOW_MS) this.unsaved.set(key + SEP + limit.id, entry);
  }

  private saveChanged(): void {
    for (const [id, entry] of this.unsaved) this.store.save(id, entry.state, entry.idleAt);
    this.unsaved.clear();
  }

  private entriesOf(key: string): Map<string, Entry> {
    let windows = this.counters.get(key);
    if (!windows) this.counters.set(key, (windows = new Map()));
    return windows;
  }

  // No sooner than SWEEP_INTERVAL_MS, and no sooner than a counter can be
  // idle: an object holding one key's 1-minute window (per-key placement)
  // wakes once when it goes idle, not six times on the way. A shorter-lived
  // counter arriving later moves the alarm earlier (at most once per alarm,
  // since the new time is at least SWEEP_INTERVAL_MS ahead).
  private scheduleSweep(now: number): void {
    if (this.counters.size === 0) return;
    const at = Math.max(now + SWEEP_INTERVAL_MS, this.earliestIdleAt);
    if (this.sweepAt !== undefined && this.sweepAt <= at) return;
    this.sweepAt = at;
    void this.ctx.storage.setAlarm(at);
  }
}

// A call from a worker of another version, naming a kind this object does
// not know: refusing it beats deciding it as something it is not.
function unknownKind(call: never): never {
  throw new Error(`unknown counter call kind ${JSON.stringify((call as { kind?: unknown }).kind)}`);
}
