/**
 * What the limits that queued a request ask of its stay in the queue
 * (docs/on-limit.md, "Bounds"): the shortest `max_queue_age_s` among them,
 * each counter's smallest `max_queue_backlog`, and whether every one of
 * them opted into keeping credentials.
 */
import { QUEUE_OPTION_BOUNDS } from "../rules/queue-options.ts";
import type { DescriptorOutcome, RateLimitResult } from "../limiter/types.ts";
import type { PaceTarget } from "./message.ts";

/** The queueing terms of one request. */
export interface QueuePolicy {
  /** The outcomes whose queue limits turned the request away: the delivery takes its slot from their counters. */
  readonly outcomes: readonly DescriptorOutcome[];
  readonly maxAgeMs: number;
  /** Per counter (parallel to `outcomes`): how many requests may wait at once. */
  readonly caps: readonly number[];
  /** Every queue limit has `queue_credentials: true`. */
  readonly keepCredentials: boolean;
}

/**
 * The queueing terms of a request `result` (reason `queued`) puts in the queue.
 *
 * @example
 * const { maxAgeMs, caps } = queuePolicy(result);
 */
export function queuePolicy(result: RateLimitResult): QueuePolicy {
  const outcomes: DescriptorOutcome[] = [];
  const caps: number[] = [];
  let maxAgeMs: number = QUEUE_OPTION_BOUNDS.maxAgeSeconds.max * 1000;
  let keepCredentials = true;
  for (const outcome of result.descriptors ?? []) {
    const queuing = outcome.policies.filter((p) => p.onLimit === "queue" && !p.decision.allowed && !p.shadow);
    if (queuing.length === 0 || outcome.counter === undefined) continue;
    let cap: number = QUEUE_OPTION_BOUNDS.maxBacklog.max;
    for (const { rule } of queuing) {
      maxAgeMs = Math.min(maxAgeMs, rule?.maxQueueAgeMs ?? QUEUE_OPTION_BOUNDS.maxAgeSeconds.default * 1000);
      cap = Math.min(cap, rule?.maxQueueBacklog ?? QUEUE_OPTION_BOUNDS.maxBacklog.default);
      keepCredentials &&= rule?.queueCredentials === true;
    }
    outcomes.push(outcome);
    caps.push(cap);
  }
  return { outcomes, maxAgeMs, caps, keepCredentials: keepCredentials && outcomes.length > 0 };
}

/**
 * The counter an outcome was decided by, as the delivery paces on it.
 *
 * @example
 * const targets = policy.outcomes.map(counterOf);
 */
export function counterOf(outcome: DescriptorOutcome): PaceTarget {
  return outcome.counter as PaceTarget;
}
