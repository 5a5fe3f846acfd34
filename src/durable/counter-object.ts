/**
 * CounterObject: the Durable Object that owns a set of counters. It runs one
 * event at a time, so each decision reads and writes its counters without
 * locks and without races; it answers from memory and checkpoints windows of
 * 5 s or longer to SQLite (docs/reliability.md, "Durability").
 */
import { DurableObject } from "cloudflare:workers";
import { chargedBefore, getAlgorithm, refund, reserve } from "../algorithms/index.ts";
import type { Decision, Step } from "../algorithms/types.ts";
import { CounterCache, MEMORY_BYTES } from "./counter-cache.ts";
import { CounterStore } from "./counter-store.ts";
import { HotKeys, withHotHint } from "./hot-keys.ts";
import { LEASE_BOOK_BYTES, LeaseBook } from "./leases.ts";
import { absorb, type CounterAccess, decideBesideLeases, leasedOn } from "./precount-sync.ts";
import type { AbsorbCall, CounterCall, CounterVerdict, LimitCall, RefundCall, RelayCall, ReserveCall } from "../stored/wire-calls.ts";
import { ownNamespace } from "./own-namespace.ts";
import { decidePenalized, type PenaltyAccess, penalized } from "./penalties.ts";
import { PENALTY_BOOK_BYTES, PenaltyBook } from "./penalty-book.ts";
import { counterStub, hintOfObject } from "./regions.ts";
import { RegionalRelay, type RelayStats } from "./relay.ts";
import { decideWithSlots, settleSlots, SlotBook, type WindowAccess } from "./slots.ts";
import { WarmKeys, withWarmHint } from "./warm-keys.ts";
import { STORAGE_ID_SEPARATOR } from "../stored/counter-ids.ts";
import { fromWire, toWire, verdictsFromWire, WIRE_VERSION, wireRefusal } from "../stored/wire.ts";

/** The shortest gap between sweeps of idle counters (a sweep waits for the first counter that can be idle). */
export const SWEEP_INTERVAL_MS = 10_000;

/**
 * How long an object must go without a call before it writes every change
 * still unsaved (whatever its `persist_ms`) and spills the small counters
 * its checkpoints left unwritten (docs/reliability.md, "Durability" and
 * "Cheap key scans"): half the runtime's ~10 s idle eviction, so the alarm
 * runs before the object can be evicted and an eviction loses nothing.
 */
export const QUIET_WRITE_MS = 5_000;

// Separates counter key from limit id in storage ids (a stored format).
const SEP = STORAGE_ID_SEPARATOR;

/** What a regional object needs of its namespace to call its home (docs/placement.md). */
export interface HomeNamespace {
  getByName(name: string, options?: DurableObjectNamespaceGetDurableObjectOptions): { decideText(calls: string, version?: number): Promise<string> };
}

/** What `stats()` reports. */
export interface CounterStats {
  /** Counter states in memory (stored windows and windows too short to store); `memoryBytes` is what MEMORY_BYTES bounds. */
  readonly memory: number;
  /** Estimated bytes of counter state in memory, ids and "not stored" markers included; at most about MEMORY_BYTES. */
  readonly memoryBytes: number;
  /** Rows in storage. */
  readonly stored: number;
  /** `decide` RPCs served since this instance started. */
  readonly calls: number;
  /** As a regional object: global hits it allowed from its leases, hits it asked its home for, calls to the home. */
  readonly relay: RelayStats;
  /** As a regional object: estimated bytes of its global keys' state (at most about RELAY_BYTES). */
  readonly relayBytes: number;
  /** SQLite rows read and written since this instance started, as billed. */
  readonly rowsRead: number;
  readonly rowsWritten: number;
}

/**
 * Owns counters; placement (`src/durable/placement.ts`) decides which keys it holds.
 *
 * @example
 * const stub = env.COUNTERS.getByName("api/shard/3");
 * const [verdict] = await stub.decide([{ key, limits, cost: 1 }]);
 */
export class CounterObject extends DurableObject {
  private readonly store: CounterStore;
  private readonly cache: CounterCache;
  /** Quota leased to pre-counting isolates (in memory: a restart ends every lease; docs: "Edge pre-counting"). */
  private readonly leases = new LeaseBook();
  /** Hits and calls per counter lately: a hot one is answered with a hint to lease it (docs/precount.md, "Hot keys lease on their own"). */
  private readonly hotKeys = new HotKeys();
  /** Hits per global key and region sent here directly: a key warm in a region is relayed there (docs/placement.md, "Relay only what pays"). */
  private readonly warmKeys = new WarmKeys();
  /** Concurrency slots (docs/concurrency.md), written through to storage. */
  private readonly slots: SlotBook;
  /** Penalty blocks (docs/rules.md, "Penalty box"), written through to storage. */
  private readonly penalties: PenaltyBook;
  /** When the alarm is set for (undefined: none set). */
  private alarmAt: number | undefined;
  /** When the next sweep of idle counters is due (undefined: none planned). */
  private sweepAt: number | undefined;
  /** The earliest `idleAt` committed since the last sweep (it may have moved on since; then the sweep finds nothing and looks again). */
  private earliestIdleAt: number;
  /** `decide` RPCs served since this instance started (tests count edge savings with it). */
  private calls = 0;
  private alarms = 0;
  /** When the last `decide` came: unsaved changes are written, and small unwritten counters spilled, once the object has been quiet for QUIET_WRITE_MS. */
  private lastCallAt = -Infinity;
  /**
   * The object's clock (a plain field, so not callable over RPC). Tests
   * replace it through `runInDurableObject` to drive the object and the
   * isolates calling it on one clock (test/support/driven-time.ts).
   */
  clock: () => number = () => Date.now();
  /**
   * As a region's copy of a home object: the regional leases of global keys
   * (docs/placement.md). It calls its home through `counterStub` on the
   * namespace `homeNamespace` gives, never a binding read by name.
   */
  readonly relay = new RegionalRelay(
    async (home, calls) => verdictsFromWire(await counterStub(this.home(), home).decideText(toWire(calls), WIRE_VERSION)),
    () => this.clock(),
    () => this.relaySyncScheduled(),
  );
  /** This object's name, as the first relayed call gave it. */
  private ownName: string | undefined;
  /**
   * The namespace a regional copy calls its home through, once known
   * (`homeNamespace`). A plain field, so not callable over RPC: tests put a
   * wrapper here through `runInDurableObject` (a slow home).
   */
  homeCounters: HomeNamespace | undefined;

  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env as never);
    this.store = new CounterStore(ctx.storage.sql);
    // The lease and penalty books' shares of MEMORY_BYTES are taken off the windows' (docs/reliability.md, "Security").
    this.cache = new CounterCache(this.store, MEMORY_BYTES - LEASE_BOOK_BYTES - PENALTY_BOOK_BYTES);
    this.slots = new SlotBook(ctx.storage.sql);
    this.penalties = new PenaltyBook(ctx.storage.sql);
    // Counters are read back one by one on their next hit; only the sweep needs to know what is stored.
    this.earliestIdleAt = Math.min(this.store.earliestIdleAt(), this.cache.restoreUnwritten(this.clock()), this.penalties.earliestUntil());
  }

  /**
   * Decide a batch of calls in order, exactly as if each came alone. Within a
   * call all windows are decided together: if any rejects, none consumes.
   * The calls are read as wire version 1 (src/stored/wire.ts): a caller of
   * another deploy that needs a version sends `decideText`.
   *
   * @example
   * await stub.decide([{ key, limits: [perSecond, perDay], cost: 1 }]);
   */
  decide(calls: readonly CounterCall[]): CounterVerdict[] | Promise<CounterVerdict[]> {
    this.calls += 1;
    const now = this.clock();
    this.lastCallAt = now;
    try {
      // --- relay (docs/placement.md): relayed hits and isolates' syncs on keys leased from this region's copy ---
      const answers = calls.map((call) => (relayed(call) ? this.relayOne(call, now) : this.decideCall(call, now)));
      // Relayed hits that need the home are answered when it has; every other answer is final already.
      return answers.some((answer) => answer instanceof Promise) ? Promise.all(answers) : (answers as CounterVerdict[]);
    } finally {
      // Same event, so the same implicit transaction: written before the answers leave.
      if (this.cache.checkpointDue(now)) this.cache.checkpoint();
      this.schedule(now);
    }
  }

  /** A global hit relayed to this region's copy: decided by the relay, or here if this object is no region's copy. */
  private relayOne(call: RelayCall | (AbsorbCall & { object: string }), now: number): CounterVerdict | Promise<CounterVerdict> {
    if (hintOfObject(call.object) !== undefined) {
      this.ownName ??= call.object;
      return call.kind === "relay" ? this.relay.decide(call) : this.relay.lend(call);
    }
    // Not a region's copy: a relayed hit is decided here, an isolate's sync taken here.
    return call.kind === "relay"
      ? this.decideOne({ key: call.key, limits: call.limits, cost: call.cost }, now)
      : this.decideCall({ ...call, object: undefined }, now);
  }

  /**
   * `decide` for a batch sent as one JSON text (src/stored/wire.ts), answered
   * the same way: what isolates and regional objects send, since a string
   * crosses the RPC for less than the objects structured clone would copy one
   * by one. `version` is the wire version the caller writes (absent: 1, an
   * isolate of a deploy before versions); one this object does not read is
   * answered with a refusal naming it and the versions read, nothing decided
   * (`verdictsFromWire` turns it into a WireVersionError at the caller).
   *
   * @example
   * const verdicts = verdictsFromWire(await stub.decideText(toWire(calls), WIRE_VERSION));
   */
  decideText(calls: string, version?: number): string | Promise<string> {
    // The version first: a batch of a version this object does not read is not parsed.
    const refusal = wireRefusal(version);
    if (refusal !== undefined) return toWire(refusal);
    const answers = this.decide(fromWire<CounterCall[]>(calls));
    return answers instanceof Promise ? answers.then(toWire) : toWire(answers);
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
        return settleSlots(call, this.slots, SEP, now);
      case "relay":
        // decide() hands relayed calls to relayOne; a relay inside a peek is read here.
        return this.decideOne({ key: call.key, limits: call.limits, cost: call.cost }, now);
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
    return this.decideOne({ ...call, cost: 0 }, this.clock());
  }

  /**
   * Forget every window of a counter key, in memory and in storage.
   *
   * @example
   * await stub.reset(key);
   */
  reset(key: string): void {
    this.cache.reset(key + SEP);
    // A reset lifts the key's penalty blocks with its windows (docs/rules.md, "Penalty box").
    this.penalties.reset(key + SEP);
  }

  /**
   * Sizes for tests, metrics and the bench's cost model.
   *
   * @example
   * const { memory, memoryBytes, stored, rowsWritten } = await stub.stats();
   */
  stats(): CounterStats {
    return {
      memory: this.cache.size,
      memoryBytes: this.cache.bytes + this.leases.bytes + this.penalties.bytes,
      stored: this.store.count(),
      calls: this.calls,
      relay: { ...this.relay.stats },
      relayBytes: this.relay.bytes,
      rowsRead: this.store.rowsRead + this.penalties.rowsRead,
      rowsWritten: this.store.rowsWritten + this.penalties.rowsWritten,
    };
  }

  /**
   * What this instance has cost since it started, as billed: `decide` calls
   * and alarms (each a Durable Object request) and SQLite rows read and
   * written. Cheap (no query), for the bench's cost model.
   *
   * @example
   * const { rowsWritten } = await stub.usage();
   */
  usage(): { calls: number; alarms: number; rowsRead: number; rowsWritten: number } {
    return {
      calls: this.calls,
      alarms: this.alarms,
      rowsRead: this.store.rowsRead + this.penalties.rowsRead,
      rowsWritten: this.store.rowsWritten + this.penalties.rowsWritten,
    };
  }

  /** Checkpoints unsaved changes when traffic has stopped, and sweeps idle counters. */
  override async alarm(): Promise<void> {
    this.alarms += 1;
    const now = this.clock();
    // Judged by when it was set for, not when it runs (a test may run it early).
    const setFor = this.alarmAt ?? now;
    this.alarmAt = undefined;
    // An alarm with nothing to checkpoint is the sweep's, even if it runs early (unless set for the relay's sync).
    if (this.sweepAt !== undefined && (now >= this.sweepAt || (this.cache.nextCheckpointAt === Infinity && setFor >= this.sweepAt))) {
      this.sweepAt = undefined;
      this.earliestIdleAt = Math.min(this.cache.sweep(now), this.penalties.sweep(now));
      this.slots.sweep(now);
    } else if (this.cache.nextCheckpointAt <= setFor || setFor - this.lastCallAt >= QUIET_WRITE_MS) this.cache.checkpoint();
    // Otherwise a quiet write overtaken by calls: a long persist_ms keeps its few writes while calls go on.
    if (now - this.lastCallAt >= QUIET_WRITE_MS && this.cache.spillDue) this.cache.spillUnwritten();
    // Started first: the sync it sends takes the relay's due time off what `schedule` sets the alarm for.
    const relaySync = this.relaySyncDue(setFor, now);
    this.schedule(now);
    await relaySync;
  }

  /**
   * As a regional object, the relay's background sync when it is due
   * (docs/placement.md, "What it costs"): on the object's one alarm, so an
   * idle regional object holds no timer and may hibernate. Awaited, so the
   * alarm's event lasts until the home answered (or the call timed out).
   */
  private async relaySyncDue(setFor: number, now: number): Promise<void> {
    if (this.relay.nextSyncAt > Math.max(setFor, now)) return;
    await this.relay.syncDue();
  }

  /** The relay wants a sync at `relay.nextSyncAt`: the alarm moves earlier if it must (`schedule` takes the earliest due). */
  private relaySyncScheduled(): void {
    this.schedule(this.clock());
  }

  /**
   * The namespace a regional copy calls its home through: by default the one
   * this object lives in (`ownNamespace`: whatever the Worker named its
   * binding). A subclass may return a wrapper of it (the bench adds delays).
   *
   * @example
   * protected override homeNamespace(name: string) { return delayed(super.homeNamespace(name)); }
   */
  protected homeNamespace(ownName: string): HomeNamespace {
    const found = ownNamespace(this.ctx.id, ownName, this.env, (this.ctx as { exports?: unknown }).exports);
    if (found === undefined)
      throw new Error(`counter object ${JSON.stringify(ownName)} found no Durable Object namespace it lives in to call its home through`);
    return found as HomeNamespace;
  }

  private home(): HomeNamespace {
    if (this.homeCounters !== undefined) return this.homeCounters;
    if (this.ownName === undefined) throw new Error("no relayed call yet: this object does not know its name");
    this.homeCounters = this.homeNamespace(this.ownName);
    return this.homeCounters;
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
          else if (earlier.state !== this.cache.read(call.key + SEP + limit.id, limit)) this.commit(call.key, limit, earlier.state, now);
        }
      },
      peek: (call) => call.limits.map((limit) => this.peekDecision(call.key, limit, now)),
    };
  }

  /** The rate windows of one counter key, for a call that also holds slots. */
  private windows(key: string, now: number): WindowAccess {
    return {
      step: (limit, cost) => this.step(key, limit, now, cost),
      commit: (limit, state) => this.commit(key, limit, state, now),
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
    const state = this.cache.read(key + SEP + limit.id, limit) as { t: number } | undefined;
    return Math.min(now, Math.max(at, state?.t ?? at));
  }

  /** `cost` hits allowed at `at` charged in a window before now's (backdate.ts), or undefined: decided at `at`. */
  private earlier(key: string, limit: LimitCall, now: number, at: number, cost: number): { state: unknown } | undefined {
    return at < now ? chargedBefore(limit.algorithm, this.cache.read(key + SEP + limit.id, limit), limit, now, at, cost) : undefined;
  }

  /** Whether `cost` hits on every window of `call` would be allowed now (nothing consumed). */
  private fits(call: CounterCall, cost: number, now: number): boolean {
    return call.limits.every((limit) => this.step(call.key, limit, now, cost).decision.allowed);
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
        state: this.cache.read(call.key + SEP + limit.id, limit),
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
      const id = call.key + SEP + limit.id;
      const state = this.cache.read(id, limit);
      // A counter already dropped had let the hits expire: nothing to give back.
      if (state !== undefined) this.commit(call.key, limit, refund(limit.algorithm, state, limit, now, call.chargedAt, call.cost), now);
    }
    return { allowed: true, decisions: call.limits.map((limit) => this.peekDecision(call.key, limit, now)) };
  }

  private decideOne(call: CounterCall, now: number): CounterVerdict {
    if (penalized(call)) return decidePenalized(call, this.penaltyAccess(call.key, now), now, () => this.decideWindows(call, now));
    return this.decideWindows(call, now);
  }

  /** What the penalty box needs of this object for a call on `key` (penalties.ts). */
  private penaltyAccess(key: string, now: number): PenaltyAccess {
    return {
      book: this.penalties,
      id: (limit) => key + SEP + limit.id,
      peek: (limit) => this.peekDecision(key, limit, now),
      blocked: (until) => {
        if (until < this.earliestIdleAt) this.earliestIdleAt = until;
      },
    };
  }

  private decideWindows(call: CounterCall, now: number): CounterVerdict {
    if (call.kind === undefined || call.kind === "decide") {
      if (call.slot !== undefined || call.limits.some((limit) => limit.concurrency))
        return decideWithSlots(call, this.slots, this.windows(call.key, now), SEP, now);
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

  private peekDecision(key: string, limit: LimitCall, now: number): Decision {
    return this.step(key, limit, now, 0).decision;
  }

  /** One window's step for `cost` hits now, from its current state (nothing committed). */
  private step(key: string, limit: LimitCall, now: number, cost: number): Step<unknown> {
    return getAlgorithm(limit.algorithm).decide(this.cache.read(key + SEP + limit.id, limit), limit, now, cost);
  }

  private commit(key: string, limit: LimitCall, state: unknown, now: number): void {
    const idleAt = this.cache.write(key + SEP + limit.id, limit, state, now);
    if (idleAt < this.earliestIdleAt) this.earliestIdleAt = idleAt;
  }

  // One alarm serves the checkpoint and the sweep, set only when it must move
  // earlier (setting it is a storage write). The sweep comes no sooner than
  // SWEEP_INTERVAL_MS, and no sooner than a counter can be idle: an object
  // holding one key's 1-minute window (per-key placement) sweeps once when
  // it goes idle, not six times on the way.
  private schedule(now: number): void {
    if (this.earliestIdleAt !== Infinity) {
      const sweepAt = Math.max(now + SWEEP_INTERVAL_MS, this.earliestIdleAt);
      if (this.sweepAt === undefined || sweepAt < this.sweepAt) this.sweepAt = sweepAt;
    }
    // Once calls stop, anything unsaved is written before an idle eviction could take it (a persist_ms may be longer).
    const quietAt = this.cache.spillDue || this.cache.nextCheckpointAt !== Infinity ? this.lastCallAt + QUIET_WRITE_MS : Infinity;
    const at = Math.min(this.sweepAt ?? Infinity, this.cache.nextCheckpointAt, quietAt, this.relay.nextSyncAt);
    if (at === Infinity || (this.alarmAt !== undefined && this.alarmAt <= at)) return;
    this.alarmAt = at;
    void this.ctx.storage.setAlarm(at);
  }
}

/** A call for this object as a region's copy (docs/placement.md): a relayed hit, or an isolate's sync naming the copy. */
function relayed(call: CounterCall): call is RelayCall | (AbsorbCall & { object: string }) {
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
