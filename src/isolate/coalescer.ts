/**
 * Request coalescing: concurrent decisions for the same counter object in
 * one isolate travel as one batched RPC. While an object is busy (see
 * object-pace.ts), calls for it gather in the next batch: for a near
 * object, that leaves once the RPC in flight has returned (see POLL_MS);
 * when that RPC carried other callers' calls too (the object is contended),
 * no sooner than CONTENDED_INTERVAL_MS after it left, so batches grow and
 * each RPC and storage write serves more decisions (group commit). For a
 * far object it leaves FAR_INTERVAL_MS after the one before, with that one
 * still in flight, so no call waits for another's round trip before its own;
 * to an object more than AT_ONCE_RTT_MS away (round trip) it leaves at once.
 * A near object's batch out longer than twice its shortest round trip plus
 * STALLED_FLOOR_MS (its object asking another region) stops holding the
 * next one back. The object decides a batch in order, so every
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
import type { CounterCall, CounterVerdict, SendBatch } from "../stored/wire-calls.ts";
import type { Defer } from "../http/defer.ts";
import { ObjectPace } from "./object-pace.ts";

export { BUSY_FOR_MS, STALLED_FLOOR_MS } from "./object-pace.ts";

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

/**
 * How often a waiting caller looks (from its own request's timer) whether
 * its batch was answered, or whether it may send it; once the batch is
 * out, every eighth of the time its answer has taken so far, if that is
 * longer. The price of never being woken by another request: up to that
 * much added to a batched call's wait (not to the call of the caller that
 * sent the batch: its own RPC answers it).
 */
export const POLL_MS = 1;

/** Largest batch one RPC carries; later calls wait for the next one. */
export const MAX_BATCH_CALLS = 512;

/**
 * Shortest gap between two batches to one contended near object (see object-pace.ts).
 * Measured on one hot key in local workerd, where an RPC returns in a few
 * ms: 8 ms took throughput from 0.50× to 0.65× bare; 16 ms did no better.
 */
export const CONTENDED_INTERVAL_MS = 8;

/**
 * Gap between two batches to a far object (see object-pace.ts): a call
 * waits at most this before its batch leaves, then one round trip, at the
 * price of more RPCs than waiting for each answer would take. Timers and
 * clocks of a Worker move in whole milliseconds, so 1 is the shortest gap
 * that still gathers calls.
 */
export const FAR_INTERVAL_MS = 1;

/**
 * Shortest round trip past which an object's calls are not batched at all
 * (see object-pace.ts): each leaves at once, up to MAX_IN_FLIGHT in flight.
 * Longer than a round trip inside one region, so a region's own objects
 * keep batching and their calls per request stay few (docs/precount.md,
 * "Request coalescing").
 */
export const AT_ONCE_RTT_MS = 100;

/** Tuning for a Coalescer; the defaults suit the gateway. */
export interface CoalescerOptions {
  /** The longest a batch waits for the RPC before it; past that it goes out anyway, so a slow or lost RPC delays others by at most this. Default 100. */
  readonly maxWaitMs?: number;
  /** How long a sender's request stays alive for its batch (callers give up after the decision timeout anyway). Default 1,000. */
  readonly keepAliveMs?: number;
  /** Shortest gap between two batches to a contended object. Default CONTENDED_INTERVAL_MS. */
  readonly contendedIntervalMs?: number;
  /** Gap between two batches to a far object, with earlier ones still in flight. Default FAR_INTERVAL_MS. */
  readonly farIntervalMs?: number;
  /** Shortest round trip past which every batch to an object leaves at once. Default AT_ONCE_RTT_MS. */
  readonly atOnceRttMs?: number;
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
  /** The batch gathering calls for an object while it is busy. */
  private readonly open = new Map<string, Batch>();
  /** When each object's next batch may leave and its answers are due. */
  private readonly pace: ObjectPace;
  /** RPCs sent, for tests and metrics. */
  rpcs = 0;

  constructor(send: SendBatch, options: CoalescerOptions = {}) {
    this.send = send;
    this.maxWaitMs = options.maxWaitMs ?? 100;
    this.keepAliveMs = options.keepAliveMs ?? 1_000;
    this.pace = new ObjectPace({
      contendedIntervalMs: options.contendedIntervalMs ?? CONTENDED_INTERVAL_MS,
      farIntervalMs: options.farIntervalMs ?? FAR_INTERVAL_MS,
      atOnceRttMs: options.atOnceRttMs ?? AT_ONCE_RTT_MS,
    });
  }

  /**
   * Decide `calls` (all owned by `objectName`) together with whatever else
   * this isolate is deciding on that object at the same time.
   *
   * @example
   * const [verdict] = await coalescer.submit(name, [call], defer);
   */
  submit(objectName: string, calls: readonly CounterCall[], defer: Defer = () => undefined): Promise<CounterVerdict[]> {
    if (!this.open.has(objectName) && !this.pace.busy(objectName, Date.now())) {
      return this.dispatch({ name: objectName, calls: [...calls], waiters: 0 }, defer);
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
      const gaveUp = () => reject(new Error(`no answer from ${objectName} within ${giveUpMs} ms`));
      const look = () => {
        if (joined.verdicts !== undefined) return resolve(joined.verdicts.slice(from, from + calls.length));
        if (joined.failure !== undefined) return reject(joined.failure.error);
        const now = Date.now();
        const waited = now - since;
        if (joined.sentAt === undefined && (waited >= this.maxWaitMs || !this.pace.busy(objectName, now))) {
          // The caller that sends the batch takes its answer from its own RPC the moment it arrives, with no look;
          // its own timer still fails it at the give-up time if the RPC never answers.
          const timer = setTimeout(gaveUp, Math.max(0, since + giveUpMs - now));
          const sent = this.dispatch(joined, defer).finally(() => clearTimeout(timer));
          return void sent.then((verdicts) => resolve(verdicts.slice(from, from + calls.length)), reject);
        }
        if (waited >= giveUpMs) return gaveUp();
        setTimeout(look, Math.min(this.nextLook(joined, since, now), Math.max(POLL_MS, since + giveUpMs - now)));
      };
      // First look when the batch may leave (a far object's next batch: when its interval ends), not a poll before.
      setTimeout(look, this.nextLook(joined, since, since));
    });
    // This request stays alive until its own timer has settled its answer (and sent the batch, if it was its turn).
    defer(answer.then(noop, noop));
    return answer;
  }

  /** Send a batch (once); its sender gets all its verdicts, and they are left in it for its waiters. */
  private async dispatch(batch: Batch, defer: Defer): Promise<CounterVerdict[]> {
    const startedAt = Date.now();
    batch.sentAt = startedAt;
    if (this.open.get(batch.name) === batch) this.open.delete(batch.name);
    this.rpcs += 1;
    const contended = batch.waiters > 0;
    this.pace.sent(batch.name, startedAt, contended);
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
      .finally(() => this.pace.settled(batch.name, startedAt, Date.now()));
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
    return sent;
  }

  // How long a waiting caller sleeps before it looks again. A batch held behind a contended one cannot leave
  // before its hold ends. Once it is out, the caller sleeps until just before its answer is due (the object's
  // shortest round trip lately), looks every POLL_MS while it is due, and after that less often the longer it
  // takes (an eighth of the time so far), which keeps the looks per call few when an object is slow.
  private nextLook(batch: Batch, since: number, now: number): number {
    if (batch.sentAt === undefined) {
      return Math.max(POLL_MS, Math.min(this.pace.heldUntil(batch.name), since + this.maxWaitMs) - now);
    }
    const dueAt = this.pace.expectedAt(batch.name, batch.sentAt);
    if (dueAt - now > POLL_MS) return dueAt - now - POLL_MS;
    const dueFor = Math.max(CONTENDED_INTERVAL_MS, (dueAt - batch.sentAt) / 4);
    if (now - dueAt <= dueFor) return POLL_MS;
    return Math.max(POLL_MS, Math.floor((now - batch.sentAt) / 8));
  }
}

function noop(): void {}
