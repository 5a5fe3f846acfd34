/**
 * The counter object's core (docs/architecture.md, "The counter object"):
 * the one place that says in which order a call meets a counter object's
 * parts — the relay for a region's copy, the penalty box, concurrency slots,
 * the quota leased to pre-counting isolates, the windows themselves, the hot
 * key meter — and what each kind of call does. Pure: no storage, no
 * `cloudflare:*`, the clock passed in. The object (counter-object.ts) is a
 * shell around it (SQLite, alarms, the wire); the tests' plain counters
 * (test/support/plain-counters.ts) run this same core over memory.
 */
import { chargedBefore, getAlgorithm, refund, reserve } from "../../algorithms/index.ts";
import type { Decision, Step } from "../../algorithms/types.ts";
import { STORAGE_ID_SEPARATOR } from "../../stored/counter-ids.ts";
import type { AbsorbCall, CounterCall, CounterVerdict, LimitCall, RefundCall, RelayCall, ReserveCall } from "../../stored/wire-calls.ts";
import { HotKeys, withHotHint } from "./hot-keys.ts";
import { LeaseBook } from "./leases/leases.ts";
import { absorb, type CounterAccess, decideBesideLeases, leasedOn } from "./leases/precount-sync.ts";
import { decidePenalized, type PenaltyAccess, penalized } from "./penalties.ts";
import { hintOfObject } from "./regions.ts";
import { decideWithSlots, type SlotTable, settleSlots, type WindowAccess } from "./slots.ts";
import { WarmKeys, withWarmHint } from "./warm-keys.ts";

// Separates counter key from limit id in storage ids (a stored format).
const SEP = STORAGE_ID_SEPARATOR;

/** Window states by storage id (counter key U+0001 limit id): the object's CounterCache, or a Map in tests. */
export interface CounterWindows {
  /** The state of one window (undefined: fresh). */
  read(id: string, limit: LimitCall): unknown;
  /** Commit a window's new state; returns when it goes idle. */
  write(id: string, limit: LimitCall, state: unknown, now: number): number;
}

/** What the core is lent: where windows, slots and penalty blocks are kept, and the relay of a region's copy. */
export interface CorePorts {
  readonly windows: CounterWindows;
  readonly slots: SlotTable;
  readonly penalties: PenaltyAccess["book"];
  /**
   * A region's copy (relay.ts): a global hit relayed to it, or an isolate's sync on a key the copy leases out
   * (docs/placement.md); absent, such calls are decided here.
   */
  readonly relay?: (call: RegionCall) => CounterVerdict | Promise<CounterVerdict>;
}

/**
 * One counter object's decisions, in the order the object applies its parts.
 *
 * @example
 * const core = new CounterCore({ windows, slots: new SlotBook(), penalties });
 * const [verdict] = core.decide([{ key: "k", cost: 1, limits }], now) as CounterVerdict[];
 */
export class CounterCore {
  /** Quota leased to pre-counting isolates (in memory: a restart ends every lease; docs/precount.md). */
  readonly leases = new LeaseBook();
  /** Hits and calls per counter lately: a hot one is answered with a hint to lease it (docs/precount.md, "Hot keys lease on their own"). */
  readonly hotKeys = new HotKeys();
  /** Hits per global key and region sent here directly: a key warm in a region is relayed there (docs/placement.md, "Relay only what pays"). */
  readonly warmKeys = new WarmKeys();
  /** The earliest time a window or block committed since the last sweep goes idle (the owner lowers or resets it around sweeps). */
  earliestIdleAt: number;
  private readonly ports: CorePorts;

  constructor(ports: CorePorts, earliestIdleAt = Infinity) {
    this.ports = ports;
    this.earliestIdleAt = earliestIdleAt;
  }

  /**
   * Decide a batch in order, exactly as if each call came alone. Within a
   * call all windows are decided together: if any rejects, none consumes.
   * A promise only when a relayed hit waits for its home.
   *
   * @example
   * const verdicts = await core.decide(calls, now);
   */
  decide(calls: readonly CounterCall[], now: number): CounterVerdict[] | Promise<CounterVerdict[]> {
    const answers = calls.map((call) => (relayed(call) ? this.relayOne(call, now) : this.decideCall(call, now)));
    return answers.some((answer) => answer instanceof Promise) ? Promise.all(answers) : (answers as CounterVerdict[]);
  }

  /**
   * Read a counter without consuming from it.
   *
   * @example
   * core.peek({ key, limits, cost: 1 }, now).decisions[0].remaining;
   */
  peek(call: CounterCall, now: number): CounterVerdict {
    return this.decideOne({ ...call, cost: 0 }, now);
  }

  /** A call for a region's copy: the relay's when this object is one, else a relayed hit decided here, an isolate's sync taken here. */
  private relayOne(call: RegionCall, now: number): CounterVerdict | Promise<CounterVerdict> {
    if (this.ports.relay !== undefined && hintOfObject(call.object) !== undefined) return this.ports.relay(call);
    return call.kind === "relay"
      ? this.decideOne({ key: call.key, limits: call.limits, cost: call.cost }, now)
      : this.decideCall({ ...call, object: undefined }, now);
  }

  private decideCall(call: CounterCall, now: number): CounterVerdict {
    switch (call.kind) {
      case undefined:
      case "decide": {
        const verdict = withHotHint(call, stamped(call, this.decideOne(call, now), now), this.hotKeys, now);
        return call.region === undefined ? verdict : withWarmHint(call, verdict, this.warmKeys, now);
      }
      case "refund":
        return this.refundOne(call, now);
      case "reserve":
        // Windows not reserving were decided now, so `now` is when their hits were taken.
        return stamped(
          call,
          penalized(call) ? decidePenalized(call, this.penaltyAccess(call.key, now), now, () => this.reserveOne(call, now)) : this.reserveOne(call, now),
          now,
        );
      case "absorb":
        return withHotHint(call, absorb(call, this.leases, this.access(now), now), this.hotKeys, now);
      case "release":
      case "renew":
        return settleSlots(call, this.ports.slots, SEP, now);
      case "relay":
        // decide() hands relayed calls to relayOne; a relay inside a peek is read here.
        return this.decideOne({ key: call.key, limits: call.limits, cost: call.cost }, now);
      default:
        return unknownKind(call);
    }
  }

  /** Penalties first (a blocked key consumes nothing), then the windows. */
  private decideOne(call: CounterCall, now: number): CounterVerdict {
    if (penalized(call)) return decidePenalized(call, this.penaltyAccess(call.key, now), now, () => this.decideWindows(call, now));
    return this.decideWindows(call, now);
  }

  /** Slots, then the leases, then the windows alone. */
  private decideWindows(call: CounterCall, now: number): CounterVerdict {
    if (call.kind === undefined || call.kind === "decide") {
      if (call.slot !== undefined || call.limits.some((limit) => limit.concurrency))
        return decideWithSlots(call, this.ports.slots, this.windows(call.key, now), SEP, now);
    }
    // Quota leased to pre-counting isolates counts as taken; only a call that fits without it is decided beside it.
    if (!this.leases.empty && call.cost > 0 && this.fits(call, call.cost, now)) {
      const access = this.access(now);
      const leased = leasedOn(call, this.leases, access, now);
      if (leased > 0) return decideBesideLeases(call, leased, this.leases, access, now);
    }
    const steps = call.limits.map((limit) => this.step(call.key, limit, now, call.cost));
    return this.settle(
      call,
      steps,
      steps.every((step) => step.decision.allowed),
      now,
    );
  }

  /**
   * Take the first slot within `maxDelayMs` at which every window allows the
   * call (see `reserve`). The object runs one event at a time, so the slot
   * is taken before the next call is looked at: slots never overlap.
   */
  private reserveOne(call: ReserveCall, now: number): CounterVerdict {
    const result = reserve(
      call.limits.map((limit) => ({
        algorithm: getAlgorithm(limit.algorithm),
        state: this.ports.windows.read(call.key + SEP + limit.id, limit),
        limit,
        reserve: limit.reserve === true,
      })),
      now,
      call.cost,
      call.maxDelayMs,
    );
    const verdict = this.settle(call, result.steps, result.allowed, now);
    return result.allowed ? { ...verdict, delayMs: result.delayMs } : verdict;
  }

  private refundOne(call: RefundCall, now: number): CounterVerdict {
    for (const limit of call.limits) {
      const state = this.ports.windows.read(call.key + SEP + limit.id, limit);
      // A counter already dropped had let the hits expire: nothing to give back.
      if (state !== undefined) this.commit(call.key, limit, refund(limit.algorithm, state, limit, now, call.chargedAt, call.cost), now);
    }
    return { allowed: true, decisions: call.limits.map((limit) => this.peekDecision(call.key, limit, now)) };
  }

  /** Commit the windows' steps if the call is allowed (and consumes); the verdict either way. */
  private settle(call: CounterCall, steps: readonly Step<unknown>[], allowed: boolean, now: number): CounterVerdict {
    if (!allowed) {
      // Nothing was consumed, so report the windows that would have allowed
      // as they really stand, not as if the hit had been taken.
      const decisions = steps.map((step, i) => (step.decision.allowed ? this.peekDecision(call.key, call.limits[i], now) : step.decision));
      return { allowed, decisions };
    }
    if (call.cost > 0) {
      for (let i = 0; i < steps.length; i++) this.commit(call.key, call.limits[i], steps[i].state, now);
    }
    return { allowed, decisions: steps.map((step) => step.decision) };
  }

  /** The object's counters at `now`, as pre-counting syncs read and charge them (precount-sync.ts). */
  private access(now: number): CounterAccess {
    return {
      // Hits reported with the time they were allowed (`at`, no later than now) count in their own window
      // (docs/placement.md, "Hits charged in their window"): one already over takes nothing.
      // Other hits are charged at `at`, which the algorithms file at their state's newest instant when that is later:
      // never before they were allowed, so never admitting more (docs/precount.md, "The bound").
      fits: (call, cost, at = now) =>
        call.limits.every(
          (limit) =>
            this.earlier(call.key, limit, now, at, cost) !== undefined ||
            this.step(call.key, limit, this.chargeTime(call.key, limit, at, now), cost).decision.allowed,
        ),
      take: (call, cost, at = now) => {
        for (const limit of call.limits) {
          const earlier = this.earlier(call.key, limit, now, at, cost);
          if (earlier === undefined) this.commit(call.key, limit, this.step(call.key, limit, this.chargeTime(call.key, limit, at, now), cost).state, now);
          else if (earlier.state !== this.ports.windows.read(call.key + SEP + limit.id, limit)) this.commit(call.key, limit, earlier.state, now);
        }
      },
      peek: (call) => call.limits.map((limit) => this.peekDecision(call.key, limit, now)),
    };
  }

  /**
   * When a hit allowed at `at` is charged on `limit` (docs/placement.md, "Hits charged in their window"): at `at`, or,
   * for gcra, whose state is a theoretical arrival time (TAT) rather than its last hit's instant, no earlier than the
   * TAT (a hit before it lands at TAT + T either way, and an earlier clock would see the bucket fuller than it is).
   */
  private chargeTime(key: string, limit: LimitCall, at: number, now: number): number {
    if (!(at < now)) return now;
    if (limit.algorithm !== "gcra") return at;
    const state = this.ports.windows.read(key + SEP + limit.id, limit) as { t: number } | undefined;
    return Math.min(now, Math.max(at, state?.t ?? at));
  }

  /** `cost` hits allowed at `at` charged in a window before now's (backdate.ts), or undefined: decided at `at`. */
  private earlier(key: string, limit: LimitCall, now: number, at: number, cost: number): { state: unknown } | undefined {
    return at < now ? chargedBefore(limit.algorithm, this.ports.windows.read(key + SEP + limit.id, limit), limit, now, at, cost) : undefined;
  }

  /** The rate windows of one counter key, for a call that also holds slots. */
  private windows(key: string, now: number): WindowAccess {
    return {
      step: (limit, cost) => this.step(key, limit, now, cost),
      commit: (limit, state) => this.commit(key, limit, state, now),
    };
  }

  /** What the penalty box needs for a call on `key` (penalties.ts). */
  private penaltyAccess(key: string, now: number): PenaltyAccess {
    return {
      book: this.ports.penalties,
      id: (limit) => key + SEP + limit.id,
      peek: (limit) => this.peekDecision(key, limit, now),
      blocked: (until) => {
        if (until < this.earliestIdleAt) this.earliestIdleAt = until;
      },
    };
  }

  /** Whether `cost` hits on every window of `call` would be allowed now (nothing consumed). */
  private fits(call: CounterCall, cost: number, now: number): boolean {
    return call.limits.every((limit) => this.step(call.key, limit, now, cost).decision.allowed);
  }

  private peekDecision(key: string, limit: LimitCall, now: number): Decision {
    return this.step(key, limit, now, 0).decision;
  }

  /** One window's step for `cost` hits now, from its current state (nothing committed). */
  private step(key: string, limit: LimitCall, now: number, cost: number): Step<unknown> {
    return getAlgorithm(limit.algorithm).decide(this.ports.windows.read(key + SEP + limit.id, limit), limit, now, cost);
  }

  private commit(key: string, limit: LimitCall, state: unknown, now: number): void {
    const idleAt = this.ports.windows.write(key + SEP + limit.id, limit, state, now);
    if (idleAt < this.earliestIdleAt) this.earliestIdleAt = idleAt;
  }
}

/** A call for this object as a region's copy (docs/placement.md): a relayed hit, or an isolate's sync naming the copy. */
export type RegionCall = RelayCall | (AbsorbCall & { object: string });

function relayed(call: CounterCall): call is RegionCall {
  return call.kind === "relay" || (call.kind === "absorb" && typeof call.object === "string");
}

function stamped(call: CounterCall, verdict: CounterVerdict, now: number): CounterVerdict {
  return call.refundable && verdict.allowed ? { ...verdict, chargedAt: now } : verdict;
}

// A call from a worker of another version, naming a kind this object does
// not know: refusing it beats deciding it as something it is not.
function unknownKind(call: never): never {
  throw new Error(`unknown counter call kind ${JSON.stringify((call as { kind?: unknown }).kind)}`);
}
