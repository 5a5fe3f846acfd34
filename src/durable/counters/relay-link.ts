/**
 * A regional object's calls to its home (docs/placement.md, "Global limits
 * decided in the region"): the calls made in one turn leave together as one
 * batch, with any leases given back, so the syncs of all its keys cost one
 * call per sync period.
 */
import type { CounterCall, CounterVerdict } from "../../stored/wire-calls.ts";

/**
 * How long a call to the home may go unanswered before it counts as failed:
 * the hits it carried are pending again for the next sync (never lost; a
 * home that took them after all charges them twice, which refuses more,
 * never allows more), and the key is free to sync again. Longer than any
 * decision timeout an edge waits for the hit it asked for (docs/reliability.md, "The relay's failures").
 */
export const RELAY_HOME_TIMEOUT_MS = 2_000;

/** Sends calls to a home object by name (the regional object's `decideText` on the namespace it lives in, src/durable/counters/own-namespace.ts). */
export type HomeSend = (home: string, calls: readonly CounterCall[]) => Promise<CounterVerdict[]>;

interface Queued {
  readonly calls: readonly CounterCall[];
  readonly resolve: (answers: CounterVerdict[]) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * One regional object's link to its home.
 *
 * @example
 * const link = new HomeLink(async (home, calls) => verdictsFromWire(await counterStub(namespace, home).decideText(toWire(calls), WIRE_VERSION)), "api/shard/3");
 * const [verdict] = await link.call([hit]);
 */
export class HomeLink {
  /** Calls sent to the home (each a batch). */
  sent = 0;
  private queued: Queued[] = [];
  /** Leases of dropped keys, given back with the next batch. */
  private back: CounterCall[] = [];
  /** Batches not yet answered. */
  private readonly flying = new Set<Promise<void>>();
  private readonly send: HomeSend;
  readonly home: string;

  constructor(send: HomeSend, home: string) {
    this.send = send;
    this.home = home;
  }

  /** Whether leases wait to be given back. */
  get owesBack(): boolean {
    return this.back.length > 0;
  }

  /**
   * Send `calls` with the others of this turn; resolves with their answers, in order.
   *
   * @example
   * const [hit, sync] = await link.call([hitCall, syncCall]);
   */
  call(calls: readonly CounterCall[]): Promise<CounterVerdict[]> {
    return new Promise((resolve, reject) => {
      this.queued.push({ calls, resolve, reject });
      if (this.queued.length === 1) queueMicrotask(() => this.flush());
    });
  }

  /**
   * Give a lease back with the next batch (its answer is not needed).
   *
   * @example
   * link.giveBack({ ...call, kind: "absorb", cost: 0, lease: { holder, want: 0, release: 4, ttlMs } });
   */
  giveBack(call: CounterCall): void {
    this.back.push(call);
  }

  /**
   * Resolves once no batch is queued or unanswered (tests and the bench wait for background syncs with it).
   *
   * @example
   * await link.settled();
   */
  async settled(): Promise<void> {
    while (this.queued.length > 0 || this.flying.size > 0) {
      await Promise.resolve();
      await Promise.allSettled([...this.flying]);
    }
  }

  private flush(): void {
    const batch = this.queued;
    const back = this.back;
    this.queued = [];
    this.back = [];
    this.sent += 1;
    const flight = withDeadline(this.send(this.home, [...batch.flatMap((queued) => queued.calls), ...back]), this.home).then(
      (answers) => {
        let at = 0;
        for (const queued of batch) {
          queued.resolve(answers.slice(at, at + queued.calls.length));
          at += queued.calls.length;
        }
      },
      (error) => {
        for (const queued of batch) queued.reject(error);
      },
    );
    this.flying.add(flight);
    void flight.finally(() => this.flying.delete(flight));
  }
}

/** `answer`, or a failure once RELAY_HOME_TIMEOUT_MS has passed without it (a home that hangs). */
function withDeadline<T>(answer: Promise<T>, home: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`home ${home} did not answer within ${RELAY_HOME_TIMEOUT_MS} ms`)), RELAY_HOME_TIMEOUT_MS);
    answer.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
