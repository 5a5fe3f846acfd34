/**
 * The counter object's memory over its SQLite store: windows shorter than
 * DURABLE_WINDOW_MS live here only; longer ones are a bounded,
 * least-recently-hit cache over storage, with changes checkpointed
 * (docs/reliability.md, "Durability").
 */
// @ts-nocheck

import { getAlgorithm } from "../algorithms/index.ts";
import { DURABLE_WINDOW_MS, PERSIST_MS } from "../rules/keys.ts";
import type { CounterStore } from "./counter-store.ts";
import type { LimitCall } from "./protocol.ts";

interface Entry {
  readonly state: unknown;
  readonly idleAt: number;
  /** Memory units it takes (see `weightOf`). */
  readonly weight: number;
  /** The idle time its stored row has (undefined: no row known): a save that keeps it writes the state alone. */
  savedIdleAt?: number;
}

/**
 * Memory units one object may hold in stored windows. A unit is about one
 * scalar counter state with its id and map entry (a few hundred bytes), so
 * the cache stays a few megabytes, far below an isolate's memory limit,
 * whatever the number of keys. A sliding log counts its entries too.
 */
export const MEMORY_UNITS = 20_000;

// Sliding logs are arrays of [time, count] pairs, four or so to a unit.
const weightOf = (state: unknown): number => (Array.isArray(state) ? 1 + Math.ceil(state.length / 4) : 1);

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
  private units = 0;
  /** When the oldest unsaved change must be written (Infinity: none unsaved). */
  nextCheckpointAt = Infinity;
  /** A strict window changed: write before this event's answers leave. */
  private mustSave = false;

  constructor(store: CounterStore, capacity = MEMORY_UNITS) {
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
    const entry = loaded === undefined ? null : { ...loaded, weight: weightOf(loaded.state), savedIdleAt: loaded.idleAt };
    this.keep(id, entry);
    return entry?.state;
  }

  /** Commit a window's new state, and return when it goes idle; stored windows are saved by the next checkpoint (strict ones in this event). */
  write(id: string, limit: LimitCall, state: unknown, now: number): number {
    const entry: Entry = { state, idleAt: getAlgorithm(limit.algorithm).idleAt(state, limit), weight: weightOf(state) };
    if (limit.windowMs < DURABLE_WINDOW_MS) {
      this.volatile.set(id, entry);
      return entry.idleAt;
    }
    if (!this.dirty.has(id)) this.nextCheckpointAt = Math.min(this.nextCheckpointAt, now + (limit.persistMs ?? PERSIST_MS.default));
    const previous = this.stored.get(id);
    if (previous) entry.savedIdleAt = previous.savedIdleAt;
    this.dirty.set(id, entry);
    if (limit.strict) this.mustSave = true;
    this.keep(id, entry);
    return entry.idleAt;
  }

  /** Whether unsaved changes must be written now: a strict one, or the checkpoint's time has come. */
  checkpointDue(now: number): boolean {
    return this.mustSave || now >= this.nextCheckpointAt;
  }

  /** Write every unsaved change: one row per changed counter, in the current event's transaction. */
  checkpoint(): void {
    for (const [id, entry] of this.dirty) this.save(id, entry);
    this.dirty.clear();
    this.nextCheckpointAt = Infinity;
    this.mustSave = false;
  }

  /** Drop idle counters from memory and storage; returns when the next one goes idle (Infinity: none left). */
  sweep(now: number): number {
    this.checkpoint();
    let earliest = Infinity;
    for (const [id, entry] of this.volatile) {
      if (entry.idleAt <= now) this.volatile.delete(id);
      else earliest = Math.min(earliest, entry.idleAt);
    }
    for (const [id, entry] of this.stored) {
      if (entry === null || entry.idleAt <= now) this.drop(id);
      else earliest = Math.min(earliest, entry.idleAt);
    }
    this.store.deleteIdle(now);
    return Math.min(earliest, this.store.earliestIdleAt());
  }

  /** Forget every window of a counter key (ids starting with `prefix`), in memory and storage. */
  reset(prefix: string): void {
    for (const id of this.volatile.keys()) if (id.startsWith(prefix)) this.volatile.delete(id);
    for (const id of this.stored.keys()) if (id.startsWith(prefix)) this.drop(id);
    for (const id of this.dirty.keys()) if (id.startsWith(prefix)) this.dirty.delete(id);
    this.store.deletePrefix(prefix);
  }

  /** Counter states held in memory. */
  get size(): number {
    let known = 0;
    for (const entry of this.stored.values()) if (entry !== null) known += 1;
    return this.volatile.size + known;
  }

  private save(id: string, entry: Entry): void {
    if (entry.savedIdleAt !== entry.idleAt || !this.store.saveState(id, entry.state)) this.store.save(id, entry.state, entry.idleAt);
    entry.savedIdleAt = entry.idleAt;
  }

  private keep(id: string, entry: Entry | null): void {
    this.drop(id);
    this.stored.set(id, entry);
    this.units += entry?.weight ?? 1;
    // Page out the least recently hit; an unsaved one is written first, so nothing is lost.
    for (const [oldest, old] of this.stored) {
      if (this.units <= this.capacity || oldest === id) break;
      const unsaved = this.dirty.get(oldest);
      if (unsaved !== undefined) {
        this.save(oldest, unsaved);
        this.dirty.delete(oldest);
      }
      this.stored.delete(oldest);
      this.units -= old?.weight ?? 1;
    }
  }

  private drop(id: string): void {
    if (!this.stored.has(id)) return;
    this.units -= this.stored.get(id)?.weight ?? 1;
    this.stored.delete(id);
  }
}
