/**
 * The concurrency slots an admitted request holds (docs/concurrency.md):
 * taken by the decision, freed when the response body has been streamed to
 * the client or the client went away, at once when there is no body to
 * stream, and renewed while a long response streams.
 */
import type { SlotCall, SlotLease } from "../stored/wire-calls.ts";
import type { EdgeRuntime } from "../isolate/runtime.ts";
import type { Defer } from "../http/defer.ts";
import type { RateLimitResult } from "../limiter/types.ts";

/**
 * How long a slot stays taken without a release or a renewal: the bound on
 * how long a slot of a vanished isolate stays taken.
 */
export const SLOT_LEASE_MS = 60_000;

/** A streaming response renews its slots this many times per lease: a lost renewal or two cost nothing. */
export const RENEWALS_PER_LEASE = 3;

/**
 * A lease for one request's slots: a holder id unique across isolates (a random UUID per lease, drawn
 * in the request: no state at module scope, which workerd shares across requests).
 *
 * @example
 * decide(edge, descriptors, { timeoutMs, slot: newSlotLease() });
 */
export function newSlotLease(): SlotLease {
  return { holder: crypto.randomUUID(), leaseMs: SLOT_LEASE_MS };
}

/**
 * The slots a decision took (undefined: none), to be released by the caller.
 *
 * @example
 * const slots = SlotHold.of(isolate.edge, result, defer);
 * return slots ? slots.follow(response) : response;
 */
export class SlotHold {
  private readonly edge: EdgeRuntime;
  private readonly taken: readonly { readonly object: string; readonly call: SlotCall }[];
  private readonly defer: Defer;
  private released = false;
  private renewal: ReturnType<typeof setInterval> | undefined;

  private constructor(edge: EdgeRuntime, taken: readonly { object: string; call: SlotCall }[], defer: Defer) {
    this.edge = edge;
    this.taken = taken;
    this.defer = defer;
  }

  /** The slots `result` took: those of every descriptor whose call with a slot was allowed. */
  static of(edge: EdgeRuntime, result: RateLimitResult, defer: Defer): SlotHold | undefined {
    let taken: { object: string; call: SlotCall }[] | undefined;
    for (const outcome of result.descriptors ?? []) {
      const counter = outcome.counter;
      if (counter === undefined || !("slot" in counter.call) || counter.call.slot === undefined || outcome.cost === 0) continue;
      // A call is all or nothing: it took its slot only if every one of its limits allowed.
      if (!outcome.policies.every((policy) => policy.decision.allowed)) continue;
      const { key, limits, slot } = counter.call;
      (taken ??= []).push({ object: counter.object, call: { kind: "release", key, limits, cost: 0, slot } });
    }
    return taken === undefined ? undefined : new SlotHold(edge, taken, defer);
  }

  /** Free every slot, once (later calls do nothing). */
  release(): void {
    if (this.released) return;
    this.released = true;
    if (this.renewal !== undefined) clearInterval(this.renewal);
    this.send("release");
  }

  /**
   * `response` with its body followed: the slots are freed when the body
   * ends, fails, or is cancelled (the client went away), and renewed while
   * it streams. A response without a body frees them at once.
   */
  follow(response: Response): Response {
    const source = response.body;
    if (source === null) {
      this.release();
      return response;
    }
    const reader = source.getReader();
    this.renewal = setInterval(() => this.renew(), this.taken[0].call.slot.leaseMs / RENEWALS_PER_LEASE);
    const body = new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        try {
          const { done, value } = await reader.read();
          if (!done) return controller.enqueue(value);
          controller.close();
          this.release();
        } catch (error) {
          this.release();
          controller.error(error);
        }
      },
      cancel: (reason) => {
        this.release();
        return reader.cancel(reason);
      },
    });
    return new Response(body, response);
  }

  // A slot already lost (its lease ran out unrenewed) is not taken back: renewing stops.
  private renew(): void {
    for (const { object, call } of this.taken) {
      const renewed = this.edge.decideCalls(object, [{ call: { ...call, kind: "renew" }, cacheable: false }], this.defer);
      this.defer(
        renewed.then(([verdict]) => {
          if (!verdict.allowed && this.renewal !== undefined) clearInterval(this.renewal);
        }),
      );
    }
  }

  private send(kind: "release"): void {
    for (const { object, call } of this.taken) {
      this.defer(this.edge.decideCalls(object, [{ call: { ...call, kind }, cacheable: false }], this.defer));
    }
  }
}
