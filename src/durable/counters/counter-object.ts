/**
 * CounterObject: the Durable Object that owns a set of counters. It runs one
 * event at a time, so each decision reads and writes its counters without
 * locks and without races; it answers from memory and checkpoints windows of
 * 5 s or longer to SQLite (docs/reliability.md, "Durability").
 */
import { DurableObject } from "cloudflare:workers";
import type { CounterCall, CounterVerdict } from "../../stored/wire-calls.ts";
import { STORAGE_ID_SEPARATOR } from "../../stored/counter-ids.ts";
import { fromWire, toWire, verdictsFromWire, WIRE_VERSION, wireRefusal } from "../../stored/wire.ts";
import { APPLIED_IDS_BYTES, AppliedIds } from "./applied-ids.ts";
import { CounterCache, MEMORY_BYTES } from "./counter-cache.ts";
import { CounterCore } from "./counter-core.ts";
import { CounterStore } from "./counter-store.ts";
import { LEASE_BOOK_BYTES, type LeaseBook } from "./leases/leases.ts";
import { ownNamespace } from "./own-namespace.ts";
import { PENALTY_BOOK_BYTES, PenaltyBook } from "./penalty-book.ts";
import { counterStub } from "./regions.ts";
import { RegionalRelay, type RelayStats } from "./relay.ts";
import { SlotBook } from "./slots.ts";

/** The shortest gap between sweeps of idle counters (a sweep waits for the first counter that can be idle). */
export const SWEEP_INTERVAL_MS = 10_000;

/**
 * How long an object must go without a call before it writes every change
 * still unsaved (whatever its `persist_ms`) and spills the small counters
 * its checkpoints left unwritten (docs/reliability.md, "Durability" and
 * "Cheap key scans and thin keys"): half the runtime's ~10 s idle eviction, so the alarm
 * runs before the object can be evicted and an eviction loses nothing.
 */
export const QUIET_WRITE_MS = 5_000;

/**
 * How long an object that holds nothing (every counter, block, slot and
 * lease gone) must go without a call before it deletes its storage
 * (docs/reliability.md, "What a request writes"): long enough that a key
 * calling every few seconds does not pay for its tables again and again
 * (making them is a dozen rows written).
 */
export const DELETE_IDLE_MS = 60_000;

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
 * Owns counters; placement (`src/durable/counters/placement.ts`) decides which keys it holds.
 *
 * @example
 * const stub = env.COUNTERS.getByName("api/shard/3");
 * const [verdict] = await stub.decide([{ key, limits, cost: 1 }]);
 */
export class CounterObject extends DurableObject {
  private store!: CounterStore;
  private cache!: CounterCache;
  /** Concurrency slots (docs/concurrency.md), written through to storage. */
  private slots!: SlotBook;
  /** Penalty blocks (docs/rules.md, "Penalty box"), written through to storage. */
  private penalties!: PenaltyBook;
  /** The order in which a call meets the parts above, the leases and the hot keys (counter-core.ts). */
  private core!: CounterCore;
  /** Ids of the calls applied lately: a call sent again is answered as before (applied-ids.ts). */
  private readonly applied = new AppliedIds();
  /** Its storage was deleted (every counter gone): the parts above are made again, tables and all, by the next call. */
  private deleted = false;
  /** Rows read and written by the parts of before a deletion. */
  private readonly rowsBefore = { read: 0, written: 0 };
  /** When the last call that left changes unsaved came. */
  private lastChangeAt = -Infinity;
  /** When the alarm set while calls keep changing counters is due (see `alarm`). */
  private heartbeatAt: number | undefined;
  /** When the alarm is set for (undefined: none set). */
  private alarmAt: number | undefined;
  /** When the next sweep of idle counters is due (undefined: none planned). */
  private sweepAt: number | undefined;
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
    this.open();
  }

  /** Make the object's parts over its storage (creating its tables) and take back what its journal and spill hold. */
  private open(): void {
    const ctx = this.ctx;
    this.store = new CounterStore(ctx.storage.sql);
    // The lease and penalty books' shares of MEMORY_BYTES, and the applied ids', are taken off the windows' (docs/reliability.md, "Security").
    this.cache = new CounterCache(this.store, MEMORY_BYTES - LEASE_BOOK_BYTES - PENALTY_BOOK_BYTES - APPLIED_IDS_BYTES);
    this.slots = new SlotBook(ctx.storage.sql);
    this.penalties = new PenaltyBook(ctx.storage.sql);
    // Counters are read back one by one on their next hit; only the sweep needs to know what is stored.
    const earliestIdleAt = Math.min(this.store.earliestIdleAt(), this.cache.restore(this.clock()), this.penalties.earliestUntil());
    this.core = new CounterCore(
      {
        windows: this.cache,
        slots: this.slots,
        penalties: this.penalties,
        relay: (call) => {
          this.ownName ??= call.object;
          return call.kind === "relay" ? this.relay.decide(call) : this.relay.lend(call);
        },
      },
      earliestIdleAt,
    );
    this.deleted = false;
  }

  /** The parts, made again if the storage was deleted. */
  private ready(): void {
    if (this.deleted) this.open();
  }

  /** Quota leased to pre-counting isolates (the core's; tests read it through `runInDurableObject`). */
  private get leases(): LeaseBook {
    return this.core.leases;
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
    this.ready();
    const now = this.clock();
    this.lastCallAt = now;
    try {
      // Relayed hits that need the home are answered when it has; every other answer is final already.
      return this.applied.decide(calls, now, (fresh) => this.core.decide(fresh, now));
    } finally {
      // Same event, so the same implicit transaction: written before the answers leave.
      this.afterCalls(now);
    }
  }

  /**
   * After a batch (docs/reliability.md, "What a request writes"): the sweep
   * when due (while calls come they sweep, so the sweep sets no alarm of its
   * own), the checkpoint when due, or now when waiting would cost more than
   * writing, then the alarm, moved only if it must be earlier.
   */
  private afterCalls(now: number): void {
    const unsaved = this.cache.unsaved;
    const gap = now - this.lastChangeAt;
    if (unsaved) this.lastChangeAt = now;
    if (this.sweepAt !== undefined && now >= this.sweepAt) this.sweep(now);
    else if (this.cache.checkpointDue(now) || (unsaved && this.writeThrough(gap))) this.cache.checkpoint(now);
    this.schedule(now);
  }

  /**
   * Whether to write this batch's changes now: no alarm is set early enough
   * to write them, and no other change came in the last persist window, so
   * none is expected in the next one. Writing now is one journal row;
   * waiting is a setAlarm (a row written) and the same row later.
   */
  private writeThrough(gap: number): boolean {
    return (this.alarmAt === undefined || this.alarmAt > this.cache.nextCheckpointAt) && gap >= this.cache.persistMs;
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

  /**
   * Read a counter without consuming from it.
   *
   * @example
   * const verdict = await stub.peek({ key, limits, cost: 0 });
   */
  peek(call: CounterCall): CounterVerdict {
    this.ready();
    return this.core.peek(call, this.clock());
  }

  /**
   * Forget every window of a counter key, in memory and in storage.
   *
   * @example
   * await stub.reset(key);
   */
  reset(key: string): void {
    this.ready();
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
    const { rowsRead, rowsWritten } = this.rows();
    return {
      memory: this.deleted ? 0 : this.cache.size,
      memoryBytes: this.deleted ? 0 : this.cache.bytes + this.core.leases.bytes + this.penalties.bytes + this.applied.bytes,
      stored: this.deleted ? 0 : this.store.count() + this.cache.journaled,
      calls: this.calls,
      relay: { ...this.relay.stats },
      relayBytes: this.relay.bytes,
      rowsRead,
      rowsWritten,
    };
  }

  /** SQLite rows read and written since this instance started, the parts of before a deletion included. */
  private rows(): { rowsRead: number; rowsWritten: number } {
    if (this.deleted) return { rowsRead: this.rowsBefore.read, rowsWritten: this.rowsBefore.written };
    return {
      rowsRead: this.rowsBefore.read + this.store.rowsRead + this.penalties.rowsRead,
      rowsWritten: this.rowsBefore.written + this.store.rowsWritten + this.penalties.rowsWritten,
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
    return { calls: this.calls, alarms: this.alarms, ...this.rows() };
  }

  /**
   * Checkpoints unsaved changes when traffic has stopped, sweeps idle
   * counters, and deletes the object's storage once it holds nothing.
   */
  override async alarm(): Promise<void> {
    this.alarms += 1;
    this.ready();
    const now = this.clock();
    // Judged by when it was set for, not when it runs (a test may run it early).
    const setFor = this.alarmAt ?? now;
    this.alarmAt = undefined;
    // An alarm with nothing to checkpoint is the sweep's, even if it runs early (unless set for the relay's sync).
    const heartbeat = this.heartbeatAt === setFor;
    this.heartbeatAt = undefined;
    if (this.sweepAt !== undefined && (now >= this.sweepAt || (!this.cache.unsaved && setFor >= this.sweepAt))) this.sweep(now);
    else if (heartbeat || this.cache.nextCheckpointAt <= setFor || setFor - this.lastCallAt >= QUIET_WRITE_MS) this.cache.checkpoint(now);
    // Otherwise a quiet write overtaken by calls: a long persist_ms keeps its few writes while calls go on.
    const quiet = now - this.lastCallAt >= QUIET_WRITE_MS;
    if (quiet && this.cache.spillDue) this.cache.spillUnwritten();
    if (this.holdsNothing()) {
      // Every counter, block, slot and lease is gone: once no call came for DELETE_IDLE_MS, the storage is
      // given back, the alarm with it; until then the alarm waits for that.
      if (now - this.lastCallAt >= DELETE_IDLE_MS) {
        await this.deleteStorage();
        return;
      }
      this.setAlarmAt(this.lastCallAt + DELETE_IDLE_MS);
    }
    // Started first: the sync it sends takes the relay's due time off what `schedule` sets the alarm for.
    const relaySync = this.relaySyncDue(setFor, now);
    // While calls keep changing counters, the next alarm comes a persist window on, before their
    // changes fall due, so a change costs no setAlarm of its own.
    if (now - this.lastChangeAt < this.cache.persistMs) {
      this.heartbeatAt = now + this.cache.persistMs;
      this.setAlarmAt(this.heartbeatAt);
    }
    this.schedule(now);
    await relaySync;
  }

  /** Drop idle counters, blocks and slots. */
  private sweep(now: number): void {
    this.sweepAt = undefined;
    this.core.earliestIdleAt = Math.min(this.cache.sweep(now), this.penalties.sweep(now));
    this.slots.sweep(now);
  }

  /** Whether the object holds nothing at all: no sweep pending, no counter, row, journal part, block, slot, lease or relayed key. */
  private holdsNothing(): boolean {
    return (
      this.sweepAt === undefined &&
      this.core.earliestIdleAt === Infinity &&
      this.cache.empty &&
      this.core.leases.empty &&
      this.relay.nextSyncAt === Infinity &&
      this.relay.bytes === 0 &&
      this.slots.count() === 0
    );
  }

  /** Delete every row and the alarm (`deleteAll`); the next call makes the tables again. */
  private async deleteStorage(): Promise<void> {
    const { rowsRead, rowsWritten } = this.rows();
    this.rowsBefore.read = rowsRead;
    this.rowsBefore.written = rowsWritten;
    this.deleted = true;
    await this.ctx.storage.deleteAll();
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

  // One alarm serves the checkpoint and the sweep, set only when it must move
  // earlier (setting it is a storage write). The sweep comes no sooner than
  // SWEEP_INTERVAL_MS, and no sooner than a counter can be idle: an object
  // holding one key's 1-minute window (per-key placement) sweeps once when
  // it goes idle, not six times on the way.
  private schedule(now: number): void {
    if (this.core.earliestIdleAt !== Infinity) {
      const sweepAt = Math.max(now + SWEEP_INTERVAL_MS, this.core.earliestIdleAt);
      if (this.sweepAt === undefined || sweepAt < this.sweepAt) this.sweepAt = sweepAt;
    }
    // Once calls stop, anything unsaved is written before an idle eviction could take it (a persist_ms may be longer).
    const quietAt = this.cache.spillDue || this.cache.nextCheckpointAt !== Infinity ? this.lastCallAt + QUIET_WRITE_MS : Infinity;
    // While calls come they sweep (afterCalls): the alarm sweeps only once the object has gone quiet.
    const sweepAt = this.sweepAt === undefined ? Infinity : Math.max(this.sweepAt, this.lastCallAt + QUIET_WRITE_MS);
    this.setAlarmAt(Math.min(sweepAt, this.cache.nextCheckpointAt, quietAt, this.relay.nextSyncAt));
  }

  /** Set the alarm for `at` only if it must move earlier (each setAlarm is a row written). */
  private setAlarmAt(at: number): void {
    if (at === Infinity || (this.alarmAt !== undefined && this.alarmAt <= at)) return;
    this.alarmAt = at;
    void this.ctx.storage.setAlarm(at);
  }
}
