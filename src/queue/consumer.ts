/**
 * The queue consumer: delivers queued requests to the origin no faster than
 * the limit that queued them (`pace.ts`), retries 5xx answers and network
 * errors with exponential backoff, and moves a request that has used up
 * `QUEUE_MAX_ATTEMPTS`, or is older than its `max_queue_age_s`, to the
 * dead-letter queue; a finished request frees its backlog place. Every
 * attempt is recorded in the request's QueueStatusObject, which also makes a
 * redelivered message (queues deliver at least once) a no-op once it was
 * delivered.
 */
import { countersIn, readSettings, type Env, type Settings } from "../config.ts";
import type { AttemptOutcome } from "../durable/queue/status-object.ts";
import { deliver, targetAtOrigin } from "./deliver.ts";
import { asQueuedMessage, type QueuedMessage } from "./message.ts";
import { PACE_WAIT_MS, paceDelivery } from "./pace.ts";
import { releaseBacklog } from "./backlog.ts";
import { openCredentials } from "./credentials.ts";

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
    await releaseBacklog(env, queued.backlog ?? [], queued.id);
    message.ack(); // already delivered or dead-lettered: a redelivery
    return;
  }
  const attempts = (before?.attempts ?? message.attempts - 1) + 1;
  const expiresAt = queued.expiresAt ?? Number.POSITIVE_INFINITY;
  if (Date.now() >= expiresAt) {
    await deadLetter(env, queued, attempts - 1, { delivered: false, error: EXPIRED });
    message.ack();
    return;
  }
  const pace = await paceDelivery(countersIn(env.COUNTERS, settings), queued.pace, Math.min(PACE_WAIT_MS, expiresAt - Date.now()));
  if (pace.kind === "later") {
    // Back on the queue as a fresh message: waiting for quota is not a failed attempt. It comes back by its
    // maximum age at the latest, to be dead-lettered then rather than sit in the queue past it.
    const wait = Math.min(pace.retryAfterMs, expiresAt - Date.now());
    const delaySeconds = Math.min(MAX_DELAY_SECONDS, Math.max(1, Math.ceil(wait / 1000)));
    if (env.QUEUE === undefined) return message.retry({ delaySeconds });
    await env.QUEUE.send(queued, { contentType: "json", delaySeconds });
    message.ack();
    return;
  }
  if (pace.kind === "never") {
    await deadLetter(env, queued, attempts - 1, { delivered: false, error: "the limit can never admit this request" });
    message.ack();
    return;
  }
  if (!targetAtOrigin(queued.request.target, settings.originUrl)) {
    // Never sent anywhere but ORIGIN_URL, whatever a message names (docs/on-limit.md, "Signed deliveries").
    await deadLetter(env, queued, attempts - 1, { delivered: false, error: "its target is not at ORIGIN_URL" });
    message.ack();
    return;
  }
  const credentials = await credentialsOf(queued, settings);
  if (credentials === undefined) {
    await deadLetter(env, queued, attempts - 1, { delivered: false, error: "its credentials cannot be decrypted with QUEUE_SECRET" });
    message.ack();
    return;
  }
  const outcome = await deliver(queued, attempts, { credentials, ...(settings.queueSecret !== undefined ? { secret: settings.queueSecret } : {}) });
  const after = status ? await status.attempted(outcome) : null;
  if (outcome.delivered) {
    await releaseBacklog(env, queued.backlog ?? [], queued.id);
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

/** Why a request past its `max_queue_age_s` was dead-lettered. */
export const EXPIRED = "older than its max_queue_age_s";

/** The credential headers sealed in the message (none when there are none); undefined when they cannot be opened. */
async function credentialsOf(queued: QueuedMessage, settings: Settings): Promise<[string, string][] | undefined> {
  if (queued.credentials === undefined) return [];
  if (settings.queueSecret === undefined) return undefined;
  try {
    return await openCredentials(settings.queueSecret, queued.credentials, queued.id);
  } catch {
    return undefined;
  }
}

async function deadLetter(env: Env, queued: QueuedMessage, attempts: number, outcome: AttemptOutcome): Promise<void> {
  const failure = { attempts, ...(outcome.status !== undefined ? { status: outcome.status } : {}), ...(outcome.error ? { error: outcome.error } : {}) };
  console.warn(JSON.stringify({ event: "floodgate.queue.dead_lettered", id: queued.id, ...failure }));
  if (env.DEAD_LETTERS) await env.DEAD_LETTERS.send({ ...queued, failure }, { contentType: "json" });
  else console.error(JSON.stringify({ event: "floodgate.queue.no_dead_letter_queue", id: queued.id }));
  await env.QUEUED?.getByName(queued.id).deadLettered();
  await releaseBacklog(env, queued.backlog ?? [], queued.id);
}
