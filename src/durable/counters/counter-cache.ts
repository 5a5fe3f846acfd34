/**
 * The counter object's memory over its SQLite store: windows shorter than
 * DURABLE_WINDOW_MS (5 s) live here only; longer ones are a least-recently-hit
 * cache over storage, with changes checkpointed (docs/reliability.md,
 * "Durability"). Both together are bounded in bytes (`MEMORY_BYTES`). A
 * checkpoint writes the changed counters into the journal: one row per
 * part of at most PART_CHARS that holds a changed counter, not a row and
 * an `idle_at` index entry per counter (docs/reliability.md, "What a
 * request writes"); a counter with a row of its own (written by an older
 * deploy, or paged out of memory) keeps saving to it.
 */
import { getAlgorithm } from "../../algorithms/index.ts";
import { DURABLE_WINDOW_MS, PERSIST_MS } from "../../rules/keys.ts";
import type { CounterStore, SpilledCounter } from "./counter-store.ts";
import type { LimitCall } from "../../stored/wire-calls.ts";

interface Entry {
  readonly state: unknown;
  readonly idleAt: number;
  /** Bytes it takes with its id (see `bytesOf`). */
  readonly weight: number;
  /** The idle time its stored row has (undefined: no row known): a save that keeps it writes the state alone. */
  savedIdleAt?: number;
  /** Holds at most UNWRITTEN_HITS of a limit of at least UNWRITTEN_MIN_LIMIT: a checkpoint may leave it unwritten. */
  small?: boolean;
  /** The journal part it is written in (undefined: in none). */
  part?: number;
}

/**
 * The most characters of one journal part (about 400 small counters): a
 * checkpoint rewrites each part holding a changed counter whole, so a part
 * stays small enough to rewrite every checkpoint.
 */
export const PART_CHARS = 32 * 1024;

/**
 * A checkpointed counter holding at most this share of its limit (and
 * burst), at least UNWRITTEN_HITS and at most UNWRITTEN_MAX_HITS, is not
 * written by a checkpoint
 * (docs/reliability.md, "Cheap key scans and thin keys"): a key scan's
 * counters, one hit each, and a thin key's few hits in a window of a large
 * limit cost no row. It is still written once it holds more, before it is
 * paged out, and spilled (all such counters in a few rows) once its object
 * has been quiet for a while, so only a crash or redeploy can lose it: at
 * most this share of the key's limit.
 */
export const UNWRITTEN_SHARE = 0.01;
/** The fewest hits a counter left unwritten may hold: a limit of UNWRITTEN_MIN_LIMIT gets this many (1 % of it). */
export const UNWRITTEN_HITS = 1;
/** The most, whatever the limit: a busy key of a huge limit is written at its checkpoints, as any other. */
export const UNWRITTEN_MAX_HITS = 10;
/** The smallest limit (and burst) whose counters may be left unwritten: UNWRITTEN_HITS is then at most UNWRITTEN_SHARE of it. */
export const UNWRITTEN_MIN_LIMIT = 100;

/**
 * The most hits (units) a counter of `limit` may hold and be left unwritten
 * by checkpoints (0: every change is written: strict, or a limit under
 * UNWRITTEN_MIN_LIMIT).
 *
 * @example
 * unwrittenHits({ limit: 1_000, burst: 1_000 }); // 10
 * unwrittenHits({ limit: 1_000_000, burst: 1_000_000 }); // 10 (UNWRITTEN_MAX_HITS)
 */
export function unwrittenHits(limit: Pick<LimitCall, "limit" | "burst" | "strict">): number {
  const least = Math.min(limit.limit, limit.burst);
  if (limit.strict === true || least < UNWRITTEN_MIN_LIMIT) return 0;
  return Math.min(UNWRITTEN_MAX_HITS, Math.max(UNWRITTEN_HITS, Math.floor(least * UNWRITTEN_SHARE)));
}

/**
 * Bytes of counter state one object may hold in memory: every window with
 * its id, short and stored, and the markers of ids known not to be stored
 * (docs/reliability.md, "Bounded memory"). Weighed in bytes, not entries,
 * so long keys or long sliding logs cannot take an object past it: its
 * isolate's memory limit is 128 MB.
 */
export const MEMORY_BYTES = 8 * 1024 * 1024;

// Estimates of what V8 holds per entry: a Map slot (in `dirty` too), the
// Entry and a scalar state object; a sliding log's [time, count] pairs are
// small arrays of their own. An id is counted twice over: as a key it may be
// held flat beside the concatenation it was built from, or in two bytes a
// character.
const ENTRY_BYTES = 200;
const MARKER_BYTES = 64;
const LOG_PAIR_BYTES = 48;
const idBytes = (id: string): number => 2 * id.length;
const stateBytes = (state: unknown): number => ENTRY_BYTES + (Array.isArray(state) ? state.length * LOG_PAIR_BYTES : 0);

/**
 * The bytes a window of `state` under `id` is weighed at.
 *
 * @example
 * new CounterCache(store, 3 * windowBytes("a", { count: 1, windowStart: 0 })); // room for three such windows
 */
export function windowBytes(id: string, state: unknown): number {
  return idBytes(id) + stateBytes(state);
}

/**
 * The bytes a "known not stored" marker for `id` is weighed at.
 *
 * @example
 * markerBytes("a"); // what remembering that "a" has no row costs
 */
export function markerBytes(id: string): number {
  return MARKER_BYTES + idBytes(id);
}

/**
 * Counter states by storage id (counter key, U+0001, limit id).
 *
 * @example
 * const cache = new CounterCache(store);
 * const state = cache.read(id, limit);
 * cache.write(id, limit, next, now);
 * if (cache.checkpointDue(now)) cache.checkpoint();
 */
export class CounterCache {
  private readonly store: CounterStore;
  private readonly capacity: number;
  /** Windows too short to store: kept until idle, bounded by rate × (window + sweep interval). */
  private readonly volatile = new Map<string, Entry>();
  /** Stored windows in recency order (oldest first); null: known not to be stored. */
  private readonly stored = new Map<string, Entry | null>();
  private readonly dirty = new Map<string, Entry>();
  /** Small counters a checkpoint left unwritten, still in `stored`: written on page-out, spilled by `spillUnwritten`. */
  private readonly unwritten = new Set<string>();
  /** A checkpoint left a counter unwritten since the last spill. */
  private spillStale = false;
  /** The estimated bytes held, `volatile` and `stored` together. */
  private held = 0;
  /** Journal parts: the ids each holds (stored windows in memory), its characters as last written (estimated since), and the parts to rewrite. */
  private readonly parts = new Map<number, Set<string>>();
  private readonly partChars = new Map<number, number>();
  private readonly staleParts = new Set<number>();
  /** The part new counters are written in while it has room. */
  private openPart = 0;
  /** When the oldest unsaved change must be written (Infinity: none unsaved). */
  nextCheckpointAt = Infinity;
  /** A strict window changed: write before this event's answers leave. */
  private mustSave = false;
  /** The persist_ms of the stored window changed last: how long its change could wait for a checkpoint. */
  persistMs: number = PERSIST_MS.default;

  constructor(store: CounterStore, capacity = MEMORY_BYTES) {
    this.store = store;
    this.capacity = capacity;
  }

  /** The state of one window (undefined: fresh), read back from storage on a miss. */
  read(id: string, limit: LimitCall): unknown {
    if (limit.windowMs < DURABLE_WINDOW_MS) return this.volatile.get(id)?.state;
    const cached = this.stored.get(id);
    if (cached !== undefined) {
      this.stored.delete(id);
      this.stored.set(id, cached);
      return cached?.state;
    }
    const loaded = this.store.load(id);
    const entry = loaded === undefined ? null : { ...loaded, weight: windowBytes(id, loaded.state), savedIdleAt: loaded.idleAt };
    this.keep(id, entry);
    return entry?.state;
  }

  /** Commit a window's new state, and return when it goes idle; stored windows are saved by the next checkpoint (strict ones in this event). */
  write(id: string, limit: LimitCall, state: unknown, now: number): number {
    const entry: Entry = { state, idleAt: getAlgorithm(limit.algorithm).idleAt(state, limit), weight: windowBytes(id, state) };
    if (limit.windowMs < DURABLE_WINDOW_MS) {
      this.keepVolatile(id, entry);
      return entry.idleAt;
    }
    const previous = this.stored.get(id);
    if (previous) {
      entry.savedIdleAt = previous.savedIdleAt;
      entry.part = previous.part;
    }
    // Weighed only while the counter has been small since it was fresh: one that held more is written at every change.
    const most = unwrittenHits(limit);
    if (most > 0 && (previous == null || previous.small === true)) entry.small = heldHits(state, limit, now) <= most;
    if (entry.small === true) {
      // No checkpoint (and so no alarm) for it: only the spill once the object goes quiet.
      this.spillStale = true;
    } else {
      this.persistMs = limit.persistMs ?? PERSIST_MS.default;
      this.nextCheckpointAt = Math.min(this.nextCheckpointAt, now + this.persistMs);
    }
    this.dirty.set(id, entry);
    if (limit.strict) this.mustSave = true;
    this.keep(id, entry);
    return entry.idleAt;
  }

  /** Whether unsaved changes must be written now: a strict one, or the checkpoint's time has come. */
  checkpointDue(now: number): boolean {
    return this.mustSave || now >= this.nextCheckpointAt;
  }

  /** Whether changes are waiting for a checkpoint (small counters' changes wait for the spill instead). */
  get unsaved(): boolean {
    return this.nextCheckpointAt !== Infinity || this.mustSave;
  }

  /**
   * Write every unsaved change but small ones, in the current event's
   * transaction: one journal row per part holding a changed counter (a
   * counter with a row of its own: that row). A counter already idle at
   * `now` is not written (its part, if any, is rewritten without it).
   */
  checkpoint(now = -Infinity): void {
    for (const [id, entry] of this.dirty) {
      if (entry.small === true) {
        this.unwritten.add(id);
        this.spillStale = true;
      } else if (entry.savedIdleAt !== undefined) this.save(id, entry);
      else if (entry.idleAt <= now) this.unlist(id, entry, true);
      else this.list(id, entry);
    }
    this.dirty.clear();
    this.nextCheckpointAt = Infinity;
    this.mustSave = false;
    this.writeParts(now);
  }

  /** Whether a checkpoint left small counters unwritten since the last spill (see `spillUnwritten`). */
  get spillDue(): boolean {
    return this.spillStale;
  }

  /**
   * Replace the spill with every small counter left unwritten, in a few
   * rows (the object does once it has gone quiet, before it can be evicted).
   * A spilled counter written since (it grew, or was paged out) has its
   * own row, which `restoreUnwritten` prefers.
   */
  spillUnwritten(): void {
    // Small changes not yet through a checkpoint are left unwritten as a checkpoint would leave them.
    for (const [id, entry] of this.dirty) {
      if (entry.small !== true) continue;
      this.unwritten.add(id);
      this.dirty.delete(id);
    }
    const entries: SpilledCounter[] = [];
    for (const id of this.unwritten) {
      const entry = this.stored.get(id);
      if (entry) entries.push([id, entry.state, entry.idleAt]);
    }
    this.store.spill(entries);
    this.spillStale = false;
  }

  /**
   * Take back the journal's and the spill's counters not idle at `now` that
   * have no row of their own (a new object's first step: a row is newer than
   * the journal, which is newer than the spill); returns when the first goes idle.
   */
  restore(now: number): number {
    let earliest = Infinity;
    const rows = this.store.earliestIdleAt() !== Infinity;
    for (const [part, counters] of this.store.readJournal()) {
      const ids = new Set<string>();
      this.parts.set(part, ids);
      this.partChars.set(part, PART_CHARS);
      this.openPart = Math.max(this.openPart, part + 1);
      for (const [id, state, idleAt] of counters) {
        if (idleAt <= now || this.stored.has(id) || (rows && this.store.load(id) !== undefined)) continue;
        ids.add(id);
        this.keep(id, { state, idleAt, weight: windowBytes(id, state), part });
        earliest = Math.min(earliest, idleAt);
      }
      // A part left with no counter is deleted by the next checkpoint or sweep.
      if (ids.size === 0) this.staleParts.add(part);
    }
    for (const [id, state, idleAt] of this.store.readSpill()) {
      if (idleAt <= now || this.stored.has(id) || this.store.load(id) !== undefined) continue;
      this.keep(id, { state, idleAt, weight: windowBytes(id, state), small: true });
      this.unwritten.add(id);
      earliest = Math.min(earliest, idleAt);
    }
    return earliest;
  }

  /**
   * Drop idle counters from memory and storage; returns when the next one
   * goes idle (Infinity: none left). An idle counter in a journal part costs
   * no write: the part is rewritten without it when a counter in it next
   * changes, or deleted once it holds none.
   */
  sweep(now: number): number {
    this.checkpoint(now);
    let earliest = Infinity;
    for (const [id, entry] of this.volatile) {
      if (entry.idleAt <= now) this.dropVolatile(id);
      else earliest = Math.min(earliest, entry.idleAt);
    }
    for (const [id, entry] of this.stored) {
      if (entry === null || entry.idleAt <= now) {
        if (entry !== null) this.unlist(id, entry, false);
        this.drop(id);
      } else earliest = Math.min(earliest, entry.idleAt);
    }
    this.writeParts(now);
    this.store.deleteIdle(now);
    return Math.min(earliest, this.store.earliestIdleAt());
  }

  /** Whether nothing is held: no counter in memory, none unsaved, unwritten or in the journal (rows of its own aside: see the store). */
  get empty(): boolean {
    if (this.volatile.size > 0 || this.dirty.size > 0 || this.unwritten.size > 0 || this.parts.size > 0) return false;
    for (const entry of this.stored.values()) if (entry !== null) return false;
    return true;
  }

  /** Counters written in the journal (and not idle when last swept). */
  get journaled(): number {
    let n = 0;
    for (const ids of this.parts.values()) n += ids.size;
    return n;
  }

  /** Forget every window of a counter key (ids starting with `prefix`), in memory and storage. */
  reset(prefix: string): void {
    for (const id of this.volatile.keys()) if (id.startsWith(prefix)) this.dropVolatile(id);
    for (const [id, entry] of this.stored) {
      if (!id.startsWith(prefix)) continue;
      if (entry !== null) this.unlist(id, entry, true);
      this.drop(id);
    }
    for (const id of this.dirty.keys()) if (id.startsWith(prefix)) this.dirty.delete(id);
    this.store.deletePrefix(prefix);
    this.writeParts(-Infinity);
    // The spill may hold the key: replaced now, so a restart does not bring it back.
    this.spillUnwritten();
  }

  /** Counter states in memory (not the "known not stored" markers; `bytes` weighs those too). */
  get size(): number {
    let known = 0;
    for (const entry of this.stored.values()) if (entry !== null) known += 1;
    return this.volatile.size + known;
  }

  /** The estimated bytes held in memory: every window with its id, and the markers of ids known not to be stored. */
  get bytes(): number {
    return this.held;
  }

  /** Put a changed counter in a journal part (the open one, while it has room) and mark the part to be rewritten. */
  private list(id: string, entry: Entry): void {
    if (entry.part === undefined) {
      const chars = Math.ceil(entry.weight / 2);
      const used = this.partChars.get(this.openPart) ?? 0;
      if (used > 0 && used + chars > PART_CHARS) this.openPart += 1;
      entry.part = this.openPart;
      let ids = this.parts.get(entry.part);
      if (ids === undefined) this.parts.set(entry.part, (ids = new Set()));
      ids.add(id);
      this.partChars.set(entry.part, (this.partChars.get(entry.part) ?? 0) + chars);
    }
    this.staleParts.add(entry.part);
  }

  /** Take a counter out of its journal part: the part is rewritten without it if `rewrite`, else only once it holds none. */
  private unlist(id: string, entry: Entry, rewrite: boolean): void {
    if (entry.part === undefined) return;
    const ids = this.parts.get(entry.part);
    ids?.delete(id);
    if (rewrite || ids?.size === 0) this.staleParts.add(entry.part);
    entry.part = undefined;
  }

  /** Rewrite each stale part whole (one row each; a part left with no counter not idle at `now` is deleted). */
  private writeParts(now: number): void {
    for (const part of this.staleParts) {
      const ids = this.parts.get(part) ?? new Set<string>();
      const counters: SpilledCounter[] = [];
      for (const id of ids) {
        const entry = this.stored.get(id);
        if (entry && entry.idleAt > now) counters.push([id, entry.state, entry.idleAt]);
      }
      this.partChars.set(part, this.store.writePart(part, counters));
      if (ids.size === 0) {
        this.parts.delete(part);
        this.partChars.delete(part);
      }
    }
    this.staleParts.clear();
  }

  private save(id: string, entry: Entry): void {
    if (entry.savedIdleAt !== entry.idleAt || !this.store.saveState(id, entry.state)) this.store.save(id, entry.state, entry.idleAt);
    entry.savedIdleAt = entry.idleAt;
  }

  private keep(id: string, entry: Entry | null): void {
    this.drop(id);
    this.stored.set(id, entry);
    this.held += entry?.weight ?? markerBytes(id);
    this.pageOut(id);
  }

  /** A short window's new state, moved to the recent end (short windows are evicted oldest first, after every stored one). */
  private keepVolatile(id: string, entry: Entry): void {
    this.dropVolatile(id);
    this.volatile.set(id, entry);
    this.held += entry.weight;
    this.pageOut(id);
    // Nothing stored left to page out: a short window cannot be read back, so the least recently hit one is forgotten.
    for (const oldest of this.volatile.keys()) {
      if (this.held <= this.capacity || oldest === id) break;
      this.dropVolatile(oldest);
    }
  }

  /**
   * Page out the least recently hit stored windows until the bytes fit; an
   * unsaved or journaled one is written to a row of its own first (the
   * journal is read only at a start), so nothing is lost.
   */
  private pageOut(keep: string): void {
    for (const [oldest, entry] of this.stored) {
      if (this.held <= this.capacity || oldest === keep) break;
      const unsaved = this.dirty.get(oldest) ?? (this.unwritten.has(oldest) || entry?.part !== undefined ? entry : undefined);
      if (unsaved) {
        this.unlist(oldest, unsaved, true);
        this.save(oldest, unsaved);
        this.dirty.delete(oldest);
      }
      this.drop(oldest);
    }
  }

  private drop(id: string): void {
    if (!this.stored.has(id)) return;
    this.unwritten.delete(id);
    this.held -= this.stored.get(id)?.weight ?? markerBytes(id);
    this.stored.delete(id);
  }

  private dropVolatile(id: string): void {
    const entry = this.volatile.get(id);
    if (entry === undefined) return;
    this.held -= entry.weight;
    this.volatile.delete(id);
  }
}

/** The hits (units) a window's state holds now: what a fresh window would have left less what this one has. */
function heldHits(state: unknown, limit: LimitCall, now: number): number {
  const algorithm = getAlgorithm(limit.algorithm);
  return algorithm.decide(undefined, limit, now, 0).decision.remaining - algorithm.decide(state, limit, now, 0).decision.remaining;
}
