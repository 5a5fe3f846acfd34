/**
 * Request coalescing: concurrent decisions for the same counter object in
 * one isolate travel as one batched RPC. At most one RPC per object is in
 * flight from an isolate; calls arriving meanwhile wait in the next batch,
 * which leaves as soon as the previous one returns. The object decides the
 * batch in order, so every call gets exactly the answer it would have got
 * alone, and an idle isolate adds no delay at all.
 */
import type { CounterCall, CounterVerdict } from "../durable/protocol.ts";

/** Sends one batch to one object; resolves with one verdict per call, in order. */
export type SendBatch = (objectName: string, calls: readonly CounterCall[]) => Promise<CounterVerdict[]>;

interface Waiter {
  readonly from: number;
  readonly count: number;
  readonly resolve: (verdicts: CounterVerdict[]) => void;
  readonly reject: (error: unknown) => void;
}

interface Batch {
  readonly calls: CounterCall[];
  readonly waiters: Waiter[];
}

/** Largest batch one RPC carries; later calls wait for the next one. */
export const MAX_BATCH_CALLS = 512;

/**
 * Per-isolate batcher of counter calls, one queue per object.
 *
 * @example
 * const coalescer = new Coalescer((name, calls) => env.COUNTERS.getByName(name).decide(calls));
 * const verdicts = await coalescer.submit("api/shard/3", [call]);
 */
export class Coalescer {
  private readonly send: SendBatch;
  private readonly maxWaitMs: number;
  private readonly open = new Map<string, Batch>();
  private readonly inFlight = new Map<string, Promise<unknown>>();
  /** RPCs sent, for tests and metrics. */
  rpcs = 0;

  /** `maxWaitMs`: how long a batch waits for a previous RPC that does not return (a hung object must not stall the next batches forever). */
  constructor(send: SendBatch, maxWaitMs = 1_000) {
    this.send = send;
    this.maxWaitMs = maxWaitMs;
  }

  /**
   * Decide `calls` (all owned by `objectName`) together with whatever else
   * this isolate is deciding on that object at the same time.
   *
   * @example
   * const [verdict] = await coalescer.submit(name, [call]);
   */
  submit(objectName: string, calls: readonly CounterCall[]): Promise<CounterVerdict[]> {
    const waiting = this.open.get(objectName);
    if (waiting !== undefined && waiting.calls.length + calls.length <= MAX_BATCH_CALLS) {
      return new Promise((resolve, reject) => {
        waiting.waiters.push({ from: waiting.calls.length, count: calls.length, resolve, reject });
        waiting.calls.push(...calls);
      });
    }
    return this.lead(objectName, calls);
  }

  // The first caller of a batch sends it from its own request, so the RPC
  // belongs to a request that is still waiting for it.
  private async lead(objectName: string, calls: readonly CounterCall[]): Promise<CounterVerdict[]> {
    const batch: Batch = { calls: [...calls], waiters: [] };
    const previous = this.inFlight.get(objectName);
    if (previous !== undefined) {
      if (!this.open.has(objectName)) this.open.set(objectName, batch);
      let timer: ReturnType<typeof setTimeout> | undefined;
      const giveUp = new Promise((resolve) => (timer = setTimeout(resolve, this.maxWaitMs)));
      await Promise.race([previous.catch(() => undefined), giveUp]);
      if (timer !== undefined) clearTimeout(timer);
      if (this.open.get(objectName) === batch) this.open.delete(objectName);
    }
    this.rpcs += 1;
    const sent = this.send(objectName, batch.calls);
    this.inFlight.set(objectName, sent);
    try {
      const verdicts = await sent;
      for (const w of batch.waiters) w.resolve(verdicts.slice(w.from, w.from + w.count));
      return verdicts.slice(0, calls.length);
    } catch (error) {
      for (const w of batch.waiters) w.reject(error);
      throw error;
    } finally {
      if (this.inFlight.get(objectName) === sent) this.inFlight.delete(objectName);
    }
  }
}
