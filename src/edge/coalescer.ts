/**
 * Request coalescing: concurrent decisions for the same counter object in
 * one isolate travel as one batched RPC. While an RPC to an object is in
 * flight from this isolate, calls for it gather in the next batch, which
 * leaves as soon as that RPC returns; when that RPC carried other callers'
 * calls too (the object is contended), no sooner than CONTENDED_INTERVAL_MS
 * after it left, so batches grow and each RPC and storage write serves more
 * decisions (group commit). The object decides a batch in order, so every
 * call gets exactly the answer it would have got alone, and an idle or
 * uncontended isolate adds no delay at all.
 *
 * Workers tie promises to the request that created them: when a request
 * ends (answered, timed out, or dropped by its client), continuations it
 * registered never run. So nothing here waits on another request's
 * promise. Each caller waits on a promise of its own, with a timer of its
 * own; any caller still waiting may send a batch whose sender went missing;
 * and a sender keeps its request alive (`defer`, i.e. ctx.waitUntil) until
 * its RPC has settled and every caller in the batch has its answer.
 */
import type { CounterCall, CounterVerdict, SendBatch } from "../durable/protocol.ts";
import type { Defer } from "../http/defer.ts";

interface Waiter {
  readonly from: number;
  readonly count: number;
  readonly resolve: (verdicts: CounterVerdict[]) => void;
  readonly reject: (error: unknown) => void;
  /** Set by the waiter's own timer when it stops waiting: its request may end, so nothing may settle its promise after. */
  gaveUp: boolean;
}

/** A caller waiting for an object to be free, to send its batch then. */
interface Waker {
  readonly batch: Batch;
  readonly waiter: Waiter;
  readonly wake: () => void;
}

interface Batch {
  readonly name: string;
  readonly calls: CounterCall[];
  readonly waiters: Waiter[];
  sent: boolean;
}

/** How long an unanswered RPC keeps its object "busy" for batching. */
export const BUSY_FOR_MS = 1_000;

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
  /** Wake-ups of batches waiting for an object to be free. */
  private readonly wakers = new Map<string, Waker[]>();
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
      return this.dispatch({ name: objectName, calls: [...calls], waiters: [], sent: false }, defer, calls.length);
    }
    let batch = this.open.get(objectName);
    const leader = batch === undefined || batch.calls.length + calls.length > MAX_BATCH_CALLS;
    if (leader) {
      batch = { name: objectName, calls: [], waiters: [], sent: false };
      this.open.set(objectName, batch);
    }
    const joined = batch as Batch;
    let waiter: Waiter | undefined;
    const answer = new Promise<CounterVerdict[]>((resolve, reject) => {
      waiter = { from: joined.calls.length, count: calls.length, resolve, reject, gaveUp: false };
      joined.waiters.push(waiter);
      joined.calls.push(...calls);
    });
    // This request stays alive until its answer is in, so the sender settles a promise of a live request. Past
    // the wait a sender keeps itself alive for (and the batch's own wait), it gives up: its own timer rejects its
    // own promise (so nothing awaiting it hangs), and no other request settles it after.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const giveUp = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.maxWaitMs + this.keepAliveMs)));
    defer(
      Promise.race([
        answer.then(
          () => "answered",
          () => "answered",
        ),
        giveUp,
      ]).then((outcome) => {
        if (timer !== undefined) clearTimeout(timer);
        const own = waiter as Waiter;
        own.gaveUp = true;
        if (outcome !== "answered") own.reject(new Error(`no answer from ${objectName} within ${this.maxWaitMs + this.keepAliveMs} ms`));
      }),
    );
    // Every caller, not only the first, can send the batch: whoever wakes first.
    void this.whenFree(objectName, joined, waiter as Waiter)
      .then(() => this.dispatch(joined, defer, 0))
      .catch(noop);
    return answer;
  }

  /**
   * Resolves (in the caller's own request) when the object has no RPC in
   * flight, or after maxWaitMs. Once the batch is sent, by this caller or
   * another, its wake-ups are dropped unsettled: their requests may have
   * ended, and settling a promise of an ended request is what Workers warn
   * about (its continuations are cancelled).
   */
  private whenFree(objectName: string, batch: Batch, waiter: Waiter): Promise<void> {
    return new Promise((resolve) => {
      setTimeout(resolve, this.maxWaitMs);
      const list = this.wakers.get(objectName) ?? [];
      // Woken from the sender's request: resolve only. Its timer belongs to this caller's request and fires there
      // (to no effect) or ends with it; cancelling it from another request would be cross-request work.
      list.push({ batch, waiter, wake: () => resolve() });
      this.wakers.set(objectName, list);
    });
  }

  /** Send a batch once; its first `own` verdicts are returned, the rest go to its waiters. */
  private async dispatch(batch: Batch, defer: Defer, own: number): Promise<CounterVerdict[]> {
    if (batch.sent) return [];
    batch.sent = true;
    if (this.open.get(batch.name) === batch) this.open.delete(batch.name);
    const waiting = this.wakers.get(batch.name)?.filter((w) => w.batch !== batch);
    if (waiting === undefined || waiting.length === 0) this.wakers.delete(batch.name);
    else this.wakers.set(batch.name, waiting);
    const startedAt = Date.now();
    this.inFlight.set(batch.name, [...(this.inFlight.get(batch.name) ?? []), startedAt]);
    this.rpcs += 1;
    const sent = this.send(batch.name, batch.calls);
    const settled = sent
      .then(
        (verdicts) => {
          for (const w of batch.waiters) if (!w.gaveUp) w.resolve(verdicts.slice(w.from, w.from + w.count));
        },
        (error: unknown) => {
          for (const w of batch.waiters) if (!w.gaveUp) w.reject(error);
        },
      )
      .finally(() => this.release(batch.name, startedAt, batch.waiters.length > 0));
    // Only other callers' answers depend on this request staying alive; a batch of its own calls alone needs no keep-alive.
    if (batch.waiters.length > 0) {
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

  // An RPC whose sender's request was torn down never reports back; after
  // this long it no longer makes the object look busy.
  private busy(objectName: string): boolean {
    const starts = this.inFlight.get(objectName);
    if (starts === undefined) return false;
    const live = starts.filter((t) => Date.now() - t < BUSY_FOR_MS);
    if (live.length === 0) this.inFlight.delete(objectName);
    else if (live.length !== starts.length) this.inFlight.set(objectName, live);
    return live.length > 0;
  }

  // A batch that carried other callers' calls means the object is contended
  // here: the next batch then leaves no sooner than CONTENDED_INTERVAL_MS
  // after this one did, so it gathers more calls (fewer RPCs and commits per
  // decision). The sender holds it: its request is kept alive until then.
  private async release(objectName: string, startedAt: number, contended: boolean): Promise<void> {
    const hold = contended ? startedAt + this.contendedIntervalMs - Date.now() : 0;
    if (hold > 0) await new Promise((resolve) => setTimeout(resolve, hold));
    const left = (this.inFlight.get(objectName) ?? []).filter((t) => t !== startedAt);
    if (left.length > 0) this.inFlight.set(objectName, left);
    else this.inFlight.delete(objectName);
    const wake = this.wakers.get(objectName);
    this.wakers.delete(objectName);
    for (const w of wake ?? []) if (!w.batch.sent && !w.waiter.gaveUp) w.wake();
  }
}

function noop(): void {}
