/**
 * Pacing of queued deliveries: before each attempt the consumer takes a
 * slot from the very counters that queued the request, so queued traffic
 * and live traffic together stay within the limit. Bucket windows reserve
 * an exact slot (as `on_limit: "delay"` does); window algorithms have no
 * future slot, so the consumer waits out their retry-after, or puts the
 * message back on the queue with that delay when it is long.
 */
import type { CounterVerdict } from "../stored/wire-calls.ts";
import { counterStub } from "../durable/counters/regions.ts";
import type { Env } from "../config.ts";
import type { PaceTarget } from "./message.ts";

/** Longest wait for a slot within one consumer run; later slots go back on the queue. */
export const PACE_WAIT_MS = 10_000;

/** What pacing decided for one delivery attempt. */
export type Pace =
  | { readonly kind: "go" }
  /** Not within PACE_WAIT_MS: put it back on the queue for `retryAfterMs`. */
  | { readonly kind: "later"; readonly retryAfterMs: number }
  /** The limit can never admit it (`requests_per_unit: 0`, or a cost above the capacity). */
  | { readonly kind: "never" };

/**
 * Take a slot from every target (waiting for it when it is within `budgetMs`), or say when to come back.
 *
 * @example
 * const pace = await paceDelivery(countersIn(env.COUNTERS, settings), message.pace);
 * if (pace.kind === "go") await deliver(message, attempt);
 */
export async function paceDelivery(counters: Env["COUNTERS"], targets: readonly PaceTarget[], budgetMs = PACE_WAIT_MS): Promise<Pace> {
  let budget = Math.max(0, budgetMs);
  for (;;) {
    const step = await takeSlots(counters, targets, budget);
    if (step.delayMs !== undefined) {
      if (step.delayMs > 0) await scheduler.wait(step.delayMs);
      return { kind: "go" };
    }
    const wait = step.retryAfterMs;
    if (!Number.isFinite(wait)) return { kind: "never" };
    if (wait > budget) return { kind: "later", retryAfterMs: wait };
    budget -= wait;
    await scheduler.wait(wait);
  }
}

/**
 * One round: reserve in each counter; the wait for the furthest slot, or the
 * retry-after of the first counter that refuses. (A slot taken in an earlier
 * counter is then spent, as for any request whose descriptors disagree.)
 */
async function takeSlots(counters: Env["COUNTERS"], targets: readonly PaceTarget[], maxDelayMs: number): Promise<{ delayMs?: number; retryAfterMs: number }> {
  let delayMs = 0;
  for (const { object, call } of targets) {
    const stub = counterStub(counters, object);
    const [verdict] = (await stub.decide([{ ...call, kind: "reserve", maxDelayMs }])) as CounterVerdict[];
    if (!verdict.allowed) return { retryAfterMs: Math.max(...verdict.decisions.filter((d) => !d.allowed).map((d) => d.retryAfterMs)) };
    delayMs = Math.max(delayMs, verdict.delayMs ?? 0);
  }
  return { delayMs, retryAfterMs: 0 };
}
