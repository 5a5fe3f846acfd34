/**
 * Request coalescing: concurrent decisions for the same counter object in
 * one isolate travel as one batched RPC. While an RPC to an object is in
 * flight from this isolate, calls for it gather in the next batch, which
 * leaves once that RPC has returned (see POLL_MS); when that RPC carried other callers'
 * calls too (the object is contended), no sooner than CONTENDED_INTERVAL_MS
 * after it left, so batches grow and each RPC and storage write serves more
 * decisions (group commit). The object decides a batch in order, so every
 * call gets exactly the answer it would have got alone, and an idle or
 * uncontended isolate adds no delay at all.
 *
 * Workers tie promises to the request that created them, and a promise
 * settled from another request is handed back to its own by the runtime:
 * if that request has ended (or ends before the hand-over runs), its
 * continuations are dropped and workerd logs a warning. So no request here
 * settles, or wakes, another's promise. The batch is plain data: its sender
 * writes the answer (or the error) into it, and each caller waiting on it
 * looks, from a timer of its own request (see POLL_MS), whether its answer
 * is in, and whether the object is free so that it may send the batch
 * itself. A sender keeps its request alive (`defer`, i.e. ctx.waitUntil)
 * until its RPC has settled, so the answer gets written.
 */
// @ts-nocheck

import type { CounterCall, CounterVerdict, SendBatch } from "../durable/protocol.ts";
import type { Defer } from "../http/defer.ts";

/** Calls gathered for one RPC. Plain data only: no request's promise or callback is reachable from it. */
interface Batch {
  readonly name: string;
  readonly calls: CounterCall[];
  /** Callers waiting on it (not its sender's own calls, when it sends them at once). */
  waiters: number;
  /** When it was sent (undefined: still gathering calls). */
  sentAt?: number;
  /** Written by the sender when its RPC answers; each waiter reads its slice from its own timer. */
  verdicts?: CounterVerdict[];
  /** Written by the sender when its RPC fails. */
  failure?: { readonly error: unknown };
}

/** How long an unanswered RPC keeps its object "busy" for batching. */
export const BUSY_FOR_MS = 1_000;

/**
 * How often a waiting caller looks (from its own request's timer) whether
 * its batch was answered, or whether it may send it; once the batch is
 * out, every eighth of the time its answer has taken so far, if that is
 * longer. The price of never being woken by another request: up to that
 * much added to a batched call's wait.
 */
export const POLL_MS = 1;

/** Holds kept before expired ones are swept (objects of per-key counters come and go). */
const HELD_KEPT = 1_024;

/** Largest batch one RPC carries; later calls wait for the next one. */
export const MAX_BATCH_CALLS = 512;

/**
 * Shortest gap between two batches to one contended object (see `release`).
 * Measured on one hot key in local workerd, where an RPC returns in a few
 * ms: 8 ms took throughput from 0.50× to 0.65× bare; 16 ms did no better.
 */
export const CONTENDED_INTERVAL_MS = 8;

/** Tuning for a Coalescer; the defaults suit the gateway. */
export interface CoalescerOptions {
  /** The longest a batch waits for the RPC before it; past that it goes out anyway, so a slow or lost RPC delays others by at most this. Default 100. */
  readonly maxWaitMs?: number;
  /** How long a sender's request stays alive for its batch (callers give up after the decision timeout anyway). Default 1,000. */
  readonly keepAliveMs?: number;
  /** Shortest gap between two batches to a contended object. Default CONTENDED_INTERVAL_MS. */
  readonly contendedIntervalMs?: number;
}

/**
 * Per-isolate batcher of counter calls, one queue per object.
 *
 * @example
 * const coalescer = new Coalescer((name, calls) => env.COUNTERS.getByName(name).decide(calls));
 * const verdicts = await coalescer.submit("api/shard/3", [call], (p) => ctx.waitUntil(p));
 */
export class Coalescer {
  private readonly send: SendBatch;
  private readonly maxWaitMs: number;
  private readonly keepAliveMs: number;
  private readonly contendedIntervalMs: number;
  /** The batch gathering calls for an object while an RPC to it is in flight. */
  private readonly open = new Map<string, Batch>();
  /** Start times of the RPCs in flight per object (a lost one stops counting after BUSY_FOR_MS). */
  private readonly inFlight = new Map<string, number[]>();
  /** Per contended object, when its next batch may leave (see `release`). */
  private readonly heldUntil = new Map<string, number>();
  /** RPCs sent, for tests and metrics. */
  rpcs = 0;

  constructor(send: SendBatch, options: CoalescerOptions = {}) {
    this.send = send;
    this.maxWaitMs = options.maxWaitMs ?? 100;
    this.keepAliveMs = options.keepAliveMs ?? 1_000;
    this.contendedIntervalMs = options.contendedIntervalMs ?? CONTENDED_INTERVAL_MS;
  }

  /**
   * Decide `calls` (all owned by `objectName`) together with whatever else
   * this isolate is deciding on that object at the same time.
   *
   * @example
   * const [verdict] = await coalescer.submit(name, [call], defer);
   */
  submit(objectName: string, calls: readonly CounterCall[], defer: Defer = () => undefined): Promise<CounterVerdict[]> {
    if (!this.busy(objectName) && !this.open.has(objectName)) {
      return this.dispatch({ name: objectName, calls: [...calls], waiters: 0 }, defer, calls.length);
    }
    let batch = this.open.get(objectName);
    if (batch === undefined || batch.calls.length + calls.length > MAX_BATCH_CALLS) {
      batch = { name: objectName, calls: [], waiters: 0 };
      this.open.set(objectName, batch);
    }
    const joined = batch;
    const from = joined.calls.length;
    joined.calls.push(...calls);
    joined.waiters += 1;
    const since = Date.now();
    const giveUpMs = this.maxWaitMs + this.keepAliveMs;
    // Settled only here, from this caller's own timer: the batch's sender writes the answer into the batch and
    // settles nothing of this request's. Past maxWaitMs the batch goes out even if the object still looks busy (a
    // lost RPC delays others by at most that); past the keep-alive a sender allows itself on top, this caller gives up.
    const answer = new Promise<CounterVerdict[]>((resolve, reject) => {
      const look = () => {
        if (joined.verdicts !== undefined) return resolve(joined.verdicts.slice(from, from + calls.length));
        if (joined.failure !== undefined) return reject(joined.failure.error);
        const now = Date.now();
        const waited = now - since;
        if (joined.sentAt === undefined && (waited >= this.maxWaitMs || !this.busy(objectName))) void this.dispatch(joined, defer, 0).catch(noop);
        if (waited >= giveUpMs) return reject(new Error(`no answer from ${objectName} within ${giveUpMs} ms`));
        // A batch held behind a contended one cannot leave before its hold ends: no need to look sooner.
        const held = joined.sentAt !== undefined ? 0 : Math.min(this.heldUntil.get(objectName) ?? 0, since + this.maxWaitMs) - now;
        // Once the batch is out, looking less often the longer its answer takes adds at most an eighth to a long
        // round trip (an object far away) and keeps the looks per call few; never past the moment to give up.
        const answerFor = joined.sentAt === undefined ? 0 : now - joined.sentAt;
        setTimeout(look, Math.min(Math.max(POLL_MS, held, Math.floor(answerFor / 8)), Math.max(POLL_MS, since + giveUpMs - now)));
      };
      setTimeout(look, POLL_MS);
    });
    // This request stays alive until its own timer has settled its answer (and sent the batch, if it was its turn).
    defer(answer.then(noop, noop));
    return answer;
  }

  /** Send a batch once; its first `own` verdicts are returned, the rest are left in it for its waiters. */
  private async dispatch(batch: Batch, defer: Defer, own: number): Promise<CounterVerdict[]> {
    if (batch.sentAt !== undefined) return [];
    const startedAt = Date.now();
    batch.sentAt = startedAt;
    if (this.open.get(batch.name) === batch) this.open.delete(batch.name);
    this.inFlight.set(batch.name, [...(this.inFlight.get(batch.name) ?? []), startedAt]);
    this.rpcs += 1;
    const contended = batch.waiters > 0;
    // Known now, so waiters can sleep through the hold instead of looking every POLL_MS.
    if (contended) this.heldUntil.set(batch.name, Math.max(this.heldUntil.get(batch.name) ?? 0, startedAt + this.contendedIntervalMs));
    const sent = this.send(batch.name, batch.calls);
    const settled = sent
      .then(
        (verdicts) => {
          batch.verdicts = verdicts;
        },
        (error: unknown) => {
          batch.failure = { error };
        },
      )
      .finally(() => this.release(batch.name, startedAt));
    // Only other callers' answers depend on this request staying alive; a batch of its own calls alone needs no keep-alive.
    if (contended) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const giveUp = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.keepAliveMs)));
      defer(
        Promise.race([settled, giveUp]).finally(() => {
          if (timer !== undefined) clearTimeout(timer);
        }),
      );
    } else {
      void settled;
    }
    const verdicts = await sent;
    return verdicts.slice(0, own);
  }

  // Busy: an RPC to it is in flight from this isolate, or it is held after a
  // contended batch (see `release`). An RPC whose sender's request was torn
  // down never reports back; after BUSY_FOR_MS it no longer counts.
  private busy(objectName: string): boolean {
    const now = Date.now();
    const held = this.heldUntil.get(objectName);
    if (held !== undefined) {
      if (now < held) return true;
      this.heldUntil.delete(objectName);
    }
    const starts = this.inFlight.get(objectName);
    if (starts === undefined) return false;
    const live = starts.filter((t) => now - t < BUSY_FOR_MS);
    if (live.length === 0) this.inFlight.delete(objectName);
    else if (live.length !== starts.length) this.inFlight.set(objectName, live);
    return live.length > 0;
  }

  // A batch that carried other callers' calls means the object is contended
  // here: the next batch then leaves no sooner than CONTENDED_INTERVAL_MS
  // after this one did (`heldUntil`, set when it left), so it gathers more
  // calls (fewer RPCs and commits per decision). Waiters see that the
  // object is free from their own timers; nobody is woken.
  private release(objectName: string, startedAt: number): void {
    const left = (this.inFlight.get(objectName) ?? []).filter((t) => t !== startedAt);
    if (left.length > 0) this.inFlight.set(objectName, left);
    else this.inFlight.delete(objectName);
    // A hold is otherwise dropped only when its object is asked about again, which one key's object may never be.
    if (this.heldUntil.size > HELD_KEPT) {
      const now = Date.now();
      for (const [name, until] of this.heldUntil) if (until <= now) this.heldUntil.delete(name);
    }
  }
}

function noop(): void {}
