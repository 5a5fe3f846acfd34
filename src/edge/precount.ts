/**
 * Edge pre-counting (`precount`, SPEC section 6). An isolate decides a
 * counter locally from the remaining quota the object last reported minus
 * its own unsynced hits, and sends those hits to the object in the
 * background at least every `sync_ms`. To bound how far past the limit
 * several isolates can go together, an isolate only spends a share
 * (`PRECOUNT_SHARE`) of the remaining quota it last saw between two syncs;
 * when that budget is spent or rounds down to zero it flushes and decides
 * strongly, through the object, so decisions near the limit are exact.
 * README "Edge pre-counting" derives the bound.
 */
import type { Decision } from "../algorithms/types.ts";
import type { CounterCall, CounterVerdict } from "../durable/protocol.ts";

/** Share of the last-seen remaining quota an isolate may spend between syncs. */
export const PRECOUNT_SHARE = 1 / 8;

/** Counters an isolate pre-counts at once; idle ones beyond this are forgotten (they are re-learned strongly). */
export const PRECOUNT_ENTRIES = 10_000;

/** Sends calls owned by one object and returns one verdict per call. */
export type Send = (objectName: string, calls: readonly CounterCall[]) => Promise<CounterVerdict[]>;

interface Entry {
  readonly objectName: string;
  readonly call: CounterCall;
  readonly syncMs: number;
  /** Per-window decisions as of `syncedAt` (after everything this isolate sent so far). */
  snapshot: readonly Decision[];
  syncedAt: number;
  /** Hits this isolate may allow on its own against the current snapshot. */
  budget: number;
  /** Hits allowed here and not yet sent. */
  pending: number;
  /** Hits sent to the object whose answer has not arrived: they still count against the budget. */
  inflight: number;
  timer: boolean;
}

/** Counts for tests, metrics and the bench. */
export interface PrecountStats {
  local: number;
  strong: number;
  flushes: number;
  /** Hits this isolate allowed that the object could not fit any more: the overshoot. */
  overshoot: number;
}

/**
 * One isolate's pre-counting state. `defer` keeps background syncs alive
 * after the response (ctx.waitUntil); `now` is the clock.
 *
 * @example
 * const table = new PrecountTable(send, () => Date.now());
 * const verdict = await table.decide(name, call, 100, (p) => ctx.waitUntil(p));
 */
export class PrecountTable {
  private readonly entries = new Map<string, Entry>();
  private readonly send: Send;
  private readonly now: () => number;
  readonly stats: PrecountStats = { local: 0, strong: 0, flushes: 0, overshoot: 0 };

  constructor(send: Send, now: () => number) {
    this.send = send;
    this.now = now;
  }

  /**
   * Decide one call (cost ≥ 1) for a counter with precount enabled.
   *
   * @example
   * const verdict = await table.decide("api/shard/3", call, 100, defer);
   */
  async decide(objectName: string, call: CounterCall, syncMs: number, defer: (work: Promise<unknown>) => void): Promise<CounterVerdict> {
    const id = entryId(call);
    const entry = this.entries.get(id);
    const now = this.now();
    if (entry !== undefined && entry.pending + entry.inflight + call.cost <= entry.budget && now - entry.syncedAt < 2 * syncMs + 1_000) {
      entry.pending += call.cost;
      this.stats.local += 1;
      if (entry.pending + entry.inflight >= entry.budget) defer(this.flush(entry));
      else if (!entry.timer) {
        entry.timer = true;
        defer(sleep(syncMs).then(() => this.flush(entry)));
      }
      return localVerdict(entry, now);
    }
    this.stats.strong += 1;
    const calls: CounterCall[] = [];
    const carried = entry?.pending ?? 0;
    if (entry !== undefined && carried > 0) {
      calls.push({ ...entry.call, cost: carried, partial: true });
      entry.pending = 0;
      entry.inflight += carried;
    }
    calls.push(call);
    let verdicts;
    try {
      verdicts = await this.send(objectName, calls);
    } finally {
      if (entry !== undefined) entry.inflight -= carried;
    }
    if (carried > 0) this.stats.overshoot += carried - (verdicts[0].accepted ?? carried);
    const verdict = verdicts[verdicts.length - 1];
    this.learn(id, objectName, call, syncMs, verdict.decisions);
    return verdict;
  }

  /**
   * The view this isolate has of a counter: remaining per window after its
   * own unsynced hits (for tests and the convergence check).
   *
   * @example
   * table.view(call)?.map((d) => d.remaining);
   */
  view(call: CounterCall): readonly Decision[] | undefined {
    const entry = this.entries.get(entryId(call));
    return entry === undefined ? undefined : localVerdict(entry, this.now()).decisions;
  }

  /** Send unsynced hits (if any), refresh the view, and refresh once more a sync later so every isolate converges. */
  private async flush(entry: Entry, followUp = true): Promise<void> {
    entry.timer = false;
    const hits = entry.pending;
    entry.pending = 0;
    entry.inflight += hits;
    this.stats.flushes += 1;
    const probe: CounterCall = hits > 0 ? { ...entry.call, cost: hits, partial: true } : { ...entry.call, cost: 0 };
    try {
      const [verdict] = await this.send(entry.objectName, [probe]);
      entry.inflight -= hits;
      if (hits > 0) this.stats.overshoot += hits - (verdict.accepted ?? hits);
      this.refresh(entry, verdict.decisions);
    } catch {
      // The object is unreachable: keep the hits for the next sync rather than lose them.
      entry.inflight -= hits;
      entry.pending += hits;
    }
    if (followUp && hits > 0) {
      await sleep(entry.syncMs);
      if (entry.pending === 0) await this.flush(entry, false);
    }
  }

  private learn(id: string, objectName: string, call: CounterCall, syncMs: number, decisions: readonly Decision[]): void {
    const existing = this.entries.get(id);
    const entry = existing ?? { objectName, call: { ...call, cost: 1 }, syncMs, snapshot: decisions, syncedAt: 0, budget: 0, pending: 0, inflight: 0, timer: false };
    this.refresh(entry, decisions);
    if (existing === undefined) {
      if (this.entries.size >= PRECOUNT_ENTRIES) this.evictIdle();
      this.entries.set(id, entry);
    }
  }

  // Oldest first (Map order); an entry with hits still to send is kept so no hit is lost.
  private evictIdle(): void {
    let scanned = 0;
    for (const [id, entry] of this.entries) {
      if (entry.pending === 0 && entry.inflight === 0 && !entry.timer) this.entries.delete(id);
      if (++scanned >= 64 || this.entries.size < PRECOUNT_ENTRIES) return;
    }
  }

  /** Number of counters this isolate is pre-counting. */
  get size(): number {
    return this.entries.size;
  }

  private refresh(entry: Entry, decisions: readonly Decision[]): void {
    entry.snapshot = decisions;
    entry.syncedAt = this.now();
    const remaining = Math.min(...decisions.map((d) => d.remaining));
    entry.budget = Math.floor(remaining * PRECOUNT_SHARE);
  }
}

function entryId(call: CounterCall): string {
  return call.key + "\u0001" + call.limits.map((l) => l.id).join("\u0002");
}

function localVerdict(entry: Entry, now: number): CounterVerdict {
  const aged = now - entry.syncedAt;
  return {
    allowed: true,
    decisions: entry.snapshot.map((d) => ({
      ...d,
      allowed: true,
      remaining: Math.max(0, d.remaining - entry.pending - entry.inflight),
      resetAfterMs: Math.max(0, d.resetAfterMs - aged),
      retryAfterMs: 0,
    })),
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
