/**
 * When the next batch to a counter object may leave an isolate, and when
 * its answer can be expected: the coalescer's timing, per object, apart
 * from its batching (docs/precount.md, "Request coalescing").
 *
 * Near objects (their round trip shorter than a batching interval) get
 * one RPC in flight at a time, and after a contended batch a hold of
 * `contendedIntervalMs`, so batches grow (group commit). Far objects (their
 * shortest round trip seen is longer than that) would make every call
 * wait for the RPC in flight and then its own: two round trips. For them
 * a contended batch leaves `farIntervalMs` after the one before it, with
 * earlier RPCs still in flight, so a call waits one round trip plus at
 * most that interval. An object on another continent (its shortest round
 * trip over `atOnceRttMs`) has every batch leave at once: beside such a
 * round trip, the few milliseconds the interval and a waiter's look add
 * are worth an RPC each. An object that is only slow (queueing under load)
 * keeps its short shortest round trip, so it is not sent more.
 *
 * A near object's batch that has been out longer than twice its shortest
 * round trip plus STALLED_FLOOR_MS is stalled: the object is waiting on
 * something else for it (a regional copy asking the home across regions,
 * docs/placement.md). It no longer holds the next batch back, so calls
 * queued behind it leave; stalled batches count toward MAX_IN_FLIGHT.
 */

/** Largest number of RPCs in flight to one object from one isolate. */
export const MAX_IN_FLIGHT = 64;

/**
 * Added to twice a near object's shortest round trip: past that, a batch in
 * flight is stalled and lets the next one leave. Longer than the hold after a
 * contended batch, so a queue at a busy local object rarely crosses it.
 */
export const STALLED_FLOOR_MS = 10;

/** How long an unanswered RPC keeps its object "busy" for batching. */
export const BUSY_FOR_MS = 1_000;

/** Holds kept before expired ones are swept (objects of per-key counters come and go). */
const PACES_KEPT = 1_024;

/** Per object: RPCs in flight, the hold after a contended batch, the shortest round trip seen lately. */
interface Pace {
  starts: number[];
  heldUntil: number;
  /** Shortest round trip seen, drifting up slowly so that a moved object is learned again; NaN until one is seen. */
  baseRttMs: number;
}

/** Timing of the batches to each object from one isolate. */
export interface PaceOptions {
  /** Gap after a contended batch to a near object. */
  readonly contendedIntervalMs: number;
  /** Gap between batches to a far object. */
  readonly farIntervalMs: number;
  /** Shortest round trip above which no gap is kept: every batch to the object leaves at once. */
  readonly atOnceRttMs: number;
}

/**
 * Pacing state of every object this isolate sends batches to.
 *
 * @example
 * const pace = new ObjectPace({ contendedIntervalMs: 8, farIntervalMs: 1, atOnceRttMs: 100 });
 * if (!pace.busy("api/shard/3", Date.now())) pace.sent("api/shard/3", Date.now(), false);
 */
export class ObjectPace {
  private readonly paces = new Map<string, Pace>();
  private readonly options: PaceOptions;

  constructor(options: PaceOptions) {
    this.options = options;
  }

  /** Whether a batch to `name` must wait: a hold, an RPC to a near object not yet stalled, or too many RPCs in flight. */
  busy(name: string, now: number): boolean {
    const pace = this.paces.get(name);
    if (pace === undefined) return false;
    if (now < pace.heldUntil) return true;
    const live = pace.starts.filter((t) => now - t < BUSY_FOR_MS);
    if (live.length !== pace.starts.length) pace.starts = live;
    if (live.length === 0) return false;
    if (live.length >= MAX_IN_FLIGHT) return true;
    if (this.far(pace)) return false;
    // NaN until a round trip is seen: then nothing counts as stalled (maxWaitMs still bounds the wait).
    const stalledAfterMs = 2 * pace.baseRttMs + STALLED_FLOOR_MS;
    return live.some((startedAt) => !(now - startedAt >= stalledAfterMs));
  }

  /** When a batch gathering for `name` should next look whether it may leave (a hold needs no looks before it ends). */
  heldUntil(name: string): number {
    return this.paces.get(name)?.heldUntil ?? 0;
  }

  /** A batch left at `now`; `contended` when it carried other callers' calls. */
  sent(name: string, now: number, contended: boolean): void {
    let pace = this.paces.get(name);
    if (pace === undefined) {
      if (this.paces.size >= PACES_KEPT) this.sweep(now);
      pace = { starts: [], heldUntil: 0, baseRttMs: Number.NaN };
      this.paces.set(name, pace);
    }
    pace.starts.push(now);
    const far = this.far(pace);
    // A far object's next batch waits only the short interval (none past atOnceRttMs): its calls then wait one round
    // trip plus that.
    if (far) pace.heldUntil = pace.baseRttMs > this.options.atOnceRttMs ? now : now + this.options.farIntervalMs;
    else if (contended) pace.heldUntil = Math.max(pace.heldUntil, now + this.options.contendedIntervalMs);
  }

  /** The RPC that left at `startedAt` settled at `now`. */
  settled(name: string, startedAt: number, now: number): void {
    const pace = this.paces.get(name);
    if (pace === undefined) return;
    const index = pace.starts.indexOf(startedAt);
    if (index >= 0) pace.starts.splice(index, 1);
    const rtt = now - startedAt;
    pace.baseRttMs = !(pace.baseRttMs <= rtt) ? rtt : pace.baseRttMs + (rtt - pace.baseRttMs) / 32;
  }

  /** When the answer of a batch that left at `sentAt` can first be expected (`sentAt` itself when unknown). */
  expectedAt(name: string, sentAt: number): number {
    const base = this.paces.get(name)?.baseRttMs ?? Number.NaN;
    return Number.isNaN(base) ? sentAt : sentAt + base;
  }

  private far(pace: Pace): boolean {
    return pace.baseRttMs > this.options.contendedIntervalMs;
  }

  // Per-key counters' objects may never be asked about again: drop the paces with nothing in flight and no hold.
  private sweep(now: number): void {
    for (const [name, pace] of this.paces) {
      if (pace.heldUntil <= now && pace.starts.every((t) => now - t >= BUSY_FOR_MS)) this.paces.delete(name);
    }
  }
}
