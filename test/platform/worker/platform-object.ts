/**
 * The counter object of the platform suite's build: the real CounterObject,
 * plus what the suite needs to do to it what the platform does
 * (docs/testing.md, "test:platform"): `platformAbort()` ends the instance
 * as an eviction or a reset does (its memory discarded; the next call
 * finds a new instance), and `platformState()` says which instance
 * answered and how many calls it has decided, so the suite can see that
 * an eviction really happened and what call rate an object saw.
 * `platformLate` applies a batch only after a delay (a late answer:
 * worker/faults.ts), and an object whose name holds an alarm marker has
 * its alarms fail, repeat, run late or run after a reset (`ALARM_FAULTS`).
 * Test-only: production objects have none of these.
 */
import { CounterObject } from "../../../src/durable/counters/counter-object.ts";

/** Objects started in this isolate, by name: the suite lists and evicts them by name. */
const started = new Set<string>();

/**
 * By object name, the quota its lease book had lent out (to regional copies and isolates) when its last
 * instance was aborted: what a home's reset may let through again (docs/reliability.md, "Durability").
 */
export const leasesOutAtAbort = new Map<string, number>();

/**
 * Names of the counter objects started in this process (workerd runs every
 * object of the namespace in the isolate of the service that declares it).
 *
 * @example
 * for (const name of startedObjects()) await env.COUNTERS.getByName(name).platformAbort();
 */
export const startedObjects = (): string[] => [...started];

/**
 * What the platform does to alarms (docs/reliability.md, "Bounds and the
 * tests that hold them"), for objects whose name holds the marker (a key
 * of its own, in a `per_key` domain; its regional copies too):
 * - `alarm-throw`: the first try of each alarm throws before it runs (the
 *   runtime tries it again, backing off from 2 s): the work comes late;
 * - `alarm-twice`: each alarm runs its work twice (at-least-once);
 * - `alarm-late`: each alarm runs 3 s after it fires;
 * - `alarm-reset`: at a key's home (not its regional copies), the first
 *   try of an alarm that comes a persist window or more after the last call
 *   (QUIET_MS: a checkpoint, the quiet write, a sweep; not one mid-burst)
 *   runs, then the object is reset (aborted), so the runtime runs the alarm
 *   again on a new instance, which knows only what was stored.
 */
export const ALARM_FAULTS = ["alarm-throw", "alarm-twice", "alarm-late", "alarm-reset"] as const;
type AlarmFault = (typeof ALARM_FAULTS)[number];
const LATE_ALARM_MS = 3_000;
/** An alarm this long after the object's last call comes once calls have stopped (a persist window, persist_ms's default). */
const QUIET_MS = 1_000;

/** Per alarm fault: alarms run (tries included) and faults injected, for the suite to see that they were. */
export const alarmTally: Record<AlarmFault, { runs: number; faults: number }> = Object.fromEntries(
  ALARM_FAULTS.map((fault) => [fault, { runs: 0, faults: 0 }]),
) as Record<AlarmFault, { runs: number; faults: number }>;

/** The counter object, with the suite's handles on it. */
export class PlatformCounterObject extends CounterObject {
  private readonly instance = crypto.randomUUID();
  /** When this instance last decided a batch. */
  private lastDecideAt = -Infinity;

  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env);
    if (ctx.id.name !== undefined) started.add(ctx.id.name);
  }

  /** Which instance this is (a new one after every eviction), the calls it has decided, and when its alarm is set for (null: none). */
  async platformState(): Promise<{ instance: string; calls: number; alarmAt: number | null }> {
    return { instance: this.instance, calls: this.usage().calls, alarmAt: await this.ctx.storage.getAlarm() };
  }

  override decide(...args: Parameters<CounterObject["decide"]>): ReturnType<CounterObject["decide"]> {
    this.lastDecideAt = Date.now();
    return super.decide(...args);
  }

  /** Decide a batch (as `decideText`) only `delayMs` from now: a call the object applies after its caller gave up on it. */
  async platformLate(calls: string, version: number | undefined, delayMs: number): Promise<string> {
    await scheduler.wait(delayMs);
    return this.decideText(calls, version);
  }

  /** The alarm, with the fault the object's name asks for (ALARM_FAULTS). */
  override async alarm(info?: AlarmInvocationInfo): Promise<void> {
    const name = this.ctx.id.name ?? "";
    const fault = ALARM_FAULTS.find((marker) => name.includes(marker));
    if (fault === undefined) return super.alarm();
    const tally = alarmTally[fault];
    tally.runs += 1;
    const firstTry = info?.isRetry !== true;
    if (fault === "alarm-throw" && firstTry) {
      tally.faults += 1;
      throw new Error("platform test: alarm failed before it ran");
    }
    if (fault === "alarm-late") {
      tally.faults += 1;
      await scheduler.wait(LATE_ALARM_MS);
    }
    await super.alarm();
    if (fault === "alarm-twice") {
      tally.faults += 1;
      await super.alarm();
    }
    if (fault === "alarm-reset" && firstTry && !name.includes("@") && Date.now() - this.lastDecideAt >= QUIET_MS) {
      tally.faults += 1;
      this.platformAbort();
    }
  }

  /** Quota lent out over every counter of the lease book (read through its private records: test-only). */
  private leasesOut(): number {
    const book = (this as unknown as { core?: { leases: { counters: Map<string, Map<string, { reserved: number }>> } } }).core?.leases;
    let out = 0;
    for (const leases of book?.counters.values() ?? []) for (const lease of leases.values()) out += lease.reserved;
    return out;
  }

  /** End this instance as the runtime does on an eviction or a reset: nothing in memory survives. */
  platformAbort(): void {
    if (this.ctx.id.name !== undefined) {
      started.delete(this.ctx.id.name);
      leasesOutAtAbort.set(this.ctx.id.name, this.leasesOut());
    }
    this.ctx.abort("platform test: object evicted");
  }
}
