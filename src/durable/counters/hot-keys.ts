/**
 * Hot keys at their object (docs/precount.md, "Hot keys lease on their
 * own"). Coalescing is per isolate, so a key hot in hundreds of isolates
 * would cost its object about one call per request; past ~1,000 calls a
 * second the platform answers "overloaded". The object therefore measures,
 * per counter, the hits it is told of (strong hits and the hits leases
 * covered) and the calls it takes, in one-second buckets on the clock it is
 * given, and while a counter is hot says so in its answers with the sync
 * period isolates should lease it on (`hot.syncMs`). An isolate that sees
 * the hint pre-counts the counter as if its rule had `precount` with that
 * period (src/isolate/hot-hints.ts), so the leases, and their exactness, are
 * the ones of docs/precount.md, "The bound".
 *
 * The period is steered by the calls measured: every isolate leasing the
 * counter syncs about once a period, so when a second brought more than
 * TARGET_CALLS_PER_S calls, or more than TARGET_CALLS_PER_HIT calls for
 * each hit, the period doubles (up to 8 × when far over), and when it brought under a quarter of the
 * lower of the two it halves (between HOT_SYNC_MIN_MS and HOT_SYNC_MAX_MS).
 * The calls a second then settle below the target whatever the number of
 * isolates, up to the bound stated in the docs.
 *
 * Memory: one small record per counter metered, weighed in bytes with its
 * id (ids are client keys) and at most HOT_KEYS_BYTES in all, the least
 * recently rolled dropped first (a dropped key is only metered afresh:
 * nothing is admitted on a hint, it only moves where leases are asked for).
 */
import type { CounterCall, CounterVerdict } from "../../stored/wire-calls.ts";
import { leaseId } from "./leases/precount-sync.ts";

/** A counter is hot while its object is told of at least this many hits a second (over every isolate). */
export const HOT_HITS_PER_S = 200;

/** The calls a second on one hot counter its object steers the sync period toward (the platform's soft limit is ~1,000 an object). */
export const TARGET_CALLS_PER_S = 300;

/**
 * The calls per hit one hot counter's object steers the period toward too:
 * at a few hundred hits a second TARGET_CALLS_PER_S alone would still cost
 * about a call for every three requests (issue: ≤ 0.25 a request).
 */
export const TARGET_CALLS_PER_HIT = 0.2;

/** The shortest and longest sync period a hot counter is given (a lease lasts 2 × it + 1 s, at most 10 s). */
export const HOT_SYNC_MIN_MS = 100;
export const HOT_SYNC_MAX_MS = 4_500;

/** Bytes the meters of one object may take, their ids included (beside MEMORY_BYTES' 8 MiB: a few thousand counters). */
export const HOT_KEYS_BYTES = 256 * 1024;

// A record's Map entry, object and numbers, beside the UTF-16 of its id.
const RECORD_OVERHEAD_BYTES = 96;

const BUCKET_MS = 1_000;

/**
 * How one object's meters judge a counter hot and what period they start it
 * on. A home uses HOME_HOT: hot at HOT_HITS_PER_S hits in a second, first
 * period HOT_SYNC_MIN_MS. A region's copy uses REGIONAL_HOT
 * (docs/placement.md, "Hot keys at the region's copy"): everything that
 * reaches it is relayed already, one call a request, so it judges the rate
 * from a quarter second on (EARLY_HOT_HITS hits at HOT_HITS_PER_S or more
 * a second) and starts the period at REGIONAL_FIRST_SYNC_MS: the strong
 * calls before the key is hot, and the isolates' first syncs after, are
 * most of what a hot key costs a copy.
 */
export interface HotPolicy {
  /** Hits over at least `earlyMs` at HOT_HITS_PER_S a second or more make the counter hot before its second ends (Infinity: only a whole second's). */
  readonly earlyHits: number;
  readonly earlyMs: number;
  /** The sync period a counter starts on when it turns hot. */
  readonly firstSyncMs: number;
}

/** A home's meters: a whole second of HOT_HITS_PER_S, starting at the shortest period. */
export const HOME_HOT: HotPolicy = { earlyHits: Infinity, earlyMs: 1_000, firstSyncMs: HOT_SYNC_MIN_MS };

/** The fewest hits a region's copy calls a counter hot on (from EARLY_HOT_MS of HOT_HITS_PER_S a second on). */
export const EARLY_HOT_HITS = 50;
export const EARLY_HOT_MS = 250;

/** The first sync period of a counter hot at a region's copy: 64 isolates syncing once a second are 64 calls a second. */
export const REGIONAL_FIRST_SYNC_MS = 1_000;

/** A region's copy's meters (docs/placement.md, "Hot keys at the region's copy"). */
export const REGIONAL_HOT: HotPolicy = { earlyHits: EARLY_HOT_HITS, earlyMs: EARLY_HOT_MS, firstSyncMs: REGIONAL_FIRST_SYNC_MS };

/** What an object tells isolates of a hot counter: pre-count it on this sync period. */
export interface HotHint {
  readonly syncMs: number;
}

interface Meter {
  /** When the current bucket started. */
  bucketAt: number;
  /** When the counter was last hot (or -Infinity): a counter turning hot again starts on the policy's first period. */
  hotAt: number;
  hits: number;
  calls: number;
  /** The bucket before (0 when it was more than a bucket ago). */
  lastHits: number;
  lastCalls: number;
  syncMs: number;
}

/**
 * Per-counter rate meters and the sync period each hot counter is given.
 *
 * @example
 * const hot = new HotKeys();
 * const hint = hot.note("key\u0001limit", 1, now); // undefined until the counter is hot
 */
export class HotKeys {
  private readonly meters = new Map<string, Meter>();
  private readonly capacity: number;
  private readonly policy: HotPolicy;
  private used = 0;

  /** @param capacity bytes the meters may take (HOT_KEYS_BYTES); @param policy when a counter is hot (HOME_HOT, REGIONAL_HOT). */
  constructor(capacity = HOT_KEYS_BYTES, policy: HotPolicy = HOME_HOT) {
    this.capacity = capacity;
    this.policy = policy;
  }

  /** Counters metered now. */
  get size(): number {
    return this.meters.size;
  }

  /** Estimated bytes of the meters: at most the capacity. */
  get bytes(): number {
    return this.used;
  }

  /**
   * Count one call carrying `hits` on counter `id` at `now`; the hint when
   * the counter is hot (this bucket or the one before had HOT_HITS_PER_S).
   */
  note(id: string, hits: number, now: number): HotHint | undefined {
    let meter = this.meters.get(id);
    if (meter === undefined) {
      const size = recordBytes(id);
      // An id larger than the whole capacity is not metered (it is decided strongly, as before).
      if (size > this.capacity) return undefined;
      for (const oldest of this.meters.keys()) {
        if (this.used + size <= this.capacity) break;
        this.meters.delete(oldest);
        this.used -= recordBytes(oldest);
      }
      meter = { bucketAt: now, hotAt: -Infinity, hits: 0, calls: 0, lastHits: 0, lastCalls: 0, syncMs: HOT_SYNC_MIN_MS };
      this.meters.set(id, meter);
      this.used += size;
    } else if (now - meter.bucketAt >= BUCKET_MS) {
      roll(meter, now);
      // Map order is roll order: the counter not rolled the longest goes first when full.
      this.meters.delete(id);
      this.meters.set(id, meter);
    }
    meter.hits += Math.max(0, hits);
    meter.calls += 1;
    if (!this.hot(meter, now)) return undefined;
    // Turning hot (not hot in the bucket before): the policy's first period, then steered by the calls.
    if (now - meter.hotAt > 2 * BUCKET_MS) meter.syncMs = Math.max(meter.syncMs, this.policy.firstSyncMs);
    meter.hotAt = now;
    return { syncMs: meter.syncMs };
  }

  /**
   * Counter `id`'s hits a second as metered at `now`: the last whole second's, or the current one's so far (over at
   * least EARLY_HOT_MS), whichever is more; 0 when not metered.
   */
  hitsPerSecond(id: string, now: number): number {
    const meter = this.meters.get(id);
    if (meter === undefined) return 0;
    return Math.max(meter.lastHits, (meter.hits * 1_000) / Math.max(EARLY_HOT_MS, now - meter.bucketAt));
  }

  /** Hot: HOT_HITS_PER_S hits in this bucket or the one before, or (the policy's early judgement) at that rate over `earlyMs`. */
  private hot(meter: Meter, now: number): boolean {
    if (Math.max(meter.hits, meter.lastHits) >= HOT_HITS_PER_S) return true;
    const { earlyHits, earlyMs } = this.policy;
    return meter.hits >= earlyHits && meter.hits * 1_000 >= HOT_HITS_PER_S * Math.max(earlyMs, now - meter.bucketAt);
  }
}

function recordBytes(id: string): number {
  return 2 * id.length + RECORD_OVERHEAD_BYTES;
}

/** Start a new bucket at `now` and steer the sync period by the calls of the one that ended. */
function roll(meter: Meter, now: number): void {
  const recent = now - meter.bucketAt < 2 * BUCKET_MS;
  meter.lastHits = recent ? meter.hits : 0;
  meter.lastCalls = recent ? meter.calls : 0;
  meter.hits = 0;
  meter.calls = 0;
  meter.bucketAt = now;
  // Over the target in calls a second or calls a hit: longer; well under both: shorter.
  const target = Math.min(TARGET_CALLS_PER_S, TARGET_CALLS_PER_HIT * meter.lastHits);
  // Far over: up to 8 × at once (the first hot second is all strong calls, one a request; a doubling a second is slow to follow).
  if (meter.lastCalls > target) meter.syncMs = Math.min(HOT_SYNC_MAX_MS, meter.syncMs * 2 ** Math.min(3, Math.ceil(Math.log2(meter.lastCalls / target))));
  else if (meter.lastCalls < target / 4) meter.syncMs = Math.max(HOT_SYNC_MIN_MS, meter.syncMs / 2);
}

/**
 * Whether the object may hint `call`: a plain decision or a pre-counting
 * sync on rate windows only (a slot, a refund, a reservation or a strict
 * window is the object's alone to decide).
 */
export function hintable(call: CounterCall): boolean {
  if (call.kind !== undefined && call.kind !== "decide" && call.kind !== "absorb") return false;
  if (call.refundable === true || ("slot" in call && call.slot !== undefined)) return false;
  return call.limits.every((limit) => limit.concurrency !== true && limit.strict !== true && limit.reserve !== true);
}

/**
 * Meter `call` and, when its counter is hot, answer `verdict` with the hint.
 *
 * @example
 * return withHotHint(call, decideOne(call), hotKeys, now);
 */
export function withHotHint(call: CounterCall, verdict: CounterVerdict, hot: HotKeys, now: number): CounterVerdict {
  if (!hintable(call)) return verdict;
  const hint = hot.note(leaseId(call), call.cost, now);
  return hint === undefined ? verdict : { ...verdict, hot: hint };
}
