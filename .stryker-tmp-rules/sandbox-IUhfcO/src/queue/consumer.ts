/**
 * The queue consumer: delivers queued requests to the origin no faster than
 * the limit that queued them (`pace.ts`), retries 5xx answers and network
 * errors with exponential backoff, and moves a request that has used up
 * `QUEUE_MAX_ATTEMPTS` to the dead-letter queue. Every attempt is recorded
 * in the request's QueueStatusObject, which also makes a redelivered
 * message (queues deliver at least once) a no-op once it was delivered.
 */
// @ts-nocheck

import { readSettings, type Env, type Settings } from "../config.ts";
import type { AttemptOutcome } from "./status-object.ts";
import { deliver } from "./deliver.ts";
import { asQueuedMessage, type QueuedMessage } from "./message.ts";
import { paceDelivery } from "./pace.ts";

/** Cloudflare Queues' longest delivery delay (12 hours). */
export const MAX_DELAY_SECONDS = 43_200;

/**
 * Seconds before retry number `failures` (1 for the first): base × 2^(failures − 1), at most 12 h.
 *
 * @example
 * backoffSeconds(1, 10); // 10
 * backoffSeconds(3, 10); // 40
 */
export function backoffSeconds(failures: number, baseSeconds: number): number {
  return Math.min(MAX_DELAY_SECONDS, baseSeconds * 2 ** Math.max(0, failures - 1));
}

/**
 * The `queue()` handler. Messages that pace on the same counter are handled
 * one after another, each waiting for its slot (a short train at the
 * limit's rate); different counters proceed side by side, so a slow limit
 * never holds up the rest of the batch.
 *
 * @example
 * export default { fetch: app.fetch, queue: (batch, env) => consumeQueue(batch, env) };
 */
export async function consumeQueue(batch: MessageBatch<unknown>, env: Env, settings: Settings = readSettings(env)): Promise<void> {
  const lanes = new Map<string, Message<unknown>[]>();
  for (const message of batch.messages) {
    const lane = laneOf(message.body);
    lanes.set(lane, [...(lanes.get(lane) ?? []), message]);
  }
  await Promise.all(
    [...lanes.values()].map(async (messages) => {
      for (const message of messages) {
        try {
          await handle(message, env, settings);
        } catch (error) {
          // The status object or a counter was unreachable: try this one again later.
          console.error(JSON.stringify({ event: "floodgate.queue.consumer_error", error: String(error) }));
          message.retry({ delaySeconds: backoffSeconds(message.attempts, settings.queueRetryBaseSeconds) });
        }
      }
    }),
  );
}

/** The counters a message paces on, as one string (malformed messages share a lane). */
function laneOf(body: unknown): string {
  const queued = asQueuedMessage(body);
  return queued === undefined ? "" : JSON.stringify(queued.pace.map((p) => [p.object, p.call.key]));
}

async function handle(message: Message<unknown>, env: Env, settings: Settings): Promise<void> {
  const queued = asQueuedMessage(message.body);
  if (queued === undefined) {
    console.error(JSON.stringify({ event: "floodgate.queue.malformed_message", id: message.id }));
    message.ack();
    return;
  }
  const status = env.QUEUED?.getByName(queued.id);
  const before = status ? await status.read() : null;
  if (before !== null && before.state !== "queued") {
    message.ack(); // already delivered or dead-lettered: a redelivery
    return;
  }
  const pace = await paceDelivery(env, queued.pace);
  if (pace.kind === "later") {
    // Back on the queue as a fresh message: waiting for quota is not a failed attempt.
    const delaySeconds = Math.min(MAX_DELAY_SECONDS, Math.max(1, Math.ceil(pace.retryAfterMs / 1000)));
    if (env.QUEUE === undefined) return message.retry({ delaySeconds });
    await env.QUEUE.send(queued, { contentType: "json", delaySeconds });
    message.ack();
    return;
  }
  const attempts = (before?.attempts ?? message.attempts - 1) + 1;
  if (pace.kind === "never") {
    await deadLetter(env, queued, attempts - 1, { delivered: false, error: "the limit can never admit this request" });
    message.ack();
    return;
  }
  const outcome = await deliver(queued, attempts);
  const after = status ? await status.attempted(outcome) : null;
  if (outcome.delivered) {
    message.ack();
    return;
  }
  const failures = after?.attempts ?? attempts;
  if (failures >= settings.queueMaxAttempts) {
    await deadLetter(env, queued, failures, outcome);
    message.ack();
    return;
  }
  message.retry({ delaySeconds: backoffSeconds(failures, settings.queueRetryBaseSeconds) });
}

async function deadLetter(env: Env, queued: QueuedMessage, attempts: number, outcome: AttemptOutcome): Promise<void> {
  const failure = { attempts, ...(outcome.status !== undefined ? { status: outcome.status } : {}), ...(outcome.error ? { error: outcome.error } : {}) };
  console.warn(JSON.stringify({ event: "floodgate.queue.dead_lettered", id: queued.id, ...failure }));
  if (env.DEAD_LETTERS) await env.DEAD_LETTERS.send({ ...queued, failure }, { contentType: "json" });
  else console.error(JSON.stringify({ event: "floodgate.queue.no_dead_letter_queue", id: queued.id }));
  await env.QUEUED?.getByName(queued.id).deadLettered();
}
