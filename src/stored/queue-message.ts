/**
 * STORED FORMAT (docs/stored-formats.md): the queue message of a request
 * put aside by `on_limit: "queue"`. A message outlives the deploy that sent
 * it (it waits in the queue, is retried for minutes, and stays in the
 * dead-letter queue), so the consumer of every later deploy reads it: a
 * member added is optional, and a meaning changed is a new `v`, with the
 * consumer reading the old one for as long as messages of it can exist.
 */
import type { CounterCall } from "./wire-calls.ts";

/** The message format's version, its `v` member (the optional members were added later; a message without them is still version 1). */
export const QUEUE_MESSAGE_VERSION = 1;

/** A counter the delivery takes a slot from (the one that queued it). */
export interface PaceTarget {
  /** Name of the CounterObject that owns the counter. */
  readonly object: string;
  /** The counter's call; pacing sends it as a `reserve` call, in which bucket windows carry `reserve: true`. */
  readonly call: CounterCall;
}

/** Credential headers sealed for the queue (AES-GCM nonce and ciphertext, base64; see credentials.ts). */
export interface SealedCredentials {
  readonly iv: string;
  readonly data: string;
}

/** Version 1 of the message format (the optional members were added later; a message without them is still version 1). */
export interface QueuedMessage {
  readonly v: typeof QUEUE_MESSAGE_VERSION;
  /** The id in `Location: /__ratelimit/queued/<id>` (a random UUID). */
  readonly id: string;
  /** When the gateway accepted it (ms since epoch). */
  readonly queuedAt: number;
  readonly request: {
    readonly method: string;
    /** The path and query the client asked for. */
    readonly path: string;
    /** Where to deliver: the origin URL it would have been forwarded to; null with no ORIGIN_URL (the built-in echo). */
    readonly target: string | null;
    /** Header fields as sent to the origin (hop-by-hop fields removed), in order. */
    readonly headers: readonly (readonly [string, string])[];
    /** The body, base64; null when there is none. */
    readonly body: string | null;
  };
  /** Counters to take a slot from before each delivery attempt. */
  readonly pace: readonly PaceTarget[];
  /** Past this (ms since epoch) it is dead-lettered instead of delivered: `queuedAt` + the limit's `max_queue_age_s`. */
  readonly expiresAt?: number;
  /** Names of the backlog objects it holds a place in (freed once it is delivered or dead-lettered). */
  readonly backlog?: readonly string[];
  /** Credential headers a `queue_credentials` limit kept, sealed with QUEUE_SECRET (docs/on-limit.md). */
  readonly credentials?: SealedCredentials;
  /** Set on the copy sent to the dead-letter queue: why the last attempt failed. */
  readonly failure?: { readonly attempts: number; readonly status?: number; readonly error?: string };
}

/**
 * The message, if `body` has the version-1 shape; a consumer acknowledges
 * (drops) anything else rather than retrying it forever.
 *
 * @example
 * const message = asQueuedMessage(queueMessage.body);
 * if (message === undefined) queueMessage.ack();
 */
export function asQueuedMessage(body: unknown): QueuedMessage | undefined {
  const m = body as Partial<QueuedMessage> | null;
  if (typeof m !== "object" || m === null || m.v !== QUEUE_MESSAGE_VERSION || typeof m.id !== "string" || typeof m.queuedAt !== "number") return undefined;
  const r = m.request;
  if (typeof r !== "object" || r === null || typeof r.method !== "string" || typeof r.path !== "string") return undefined;
  if (!(r.target === null || typeof r.target === "string") || !(r.body === null || typeof r.body === "string")) return undefined;
  if (!Array.isArray(r.headers) || !r.headers.every((h) => Array.isArray(h) && h.length === 2 && h.every((x) => typeof x === "string"))) return undefined;
  if (!Array.isArray(m.pace) || !m.pace.every((p) => typeof p?.object === "string" && typeof p?.call?.key === "string" && Array.isArray(p.call.limits)))
    return undefined;
  if (m.expiresAt !== undefined && typeof m.expiresAt !== "number") return undefined;
  if (m.backlog !== undefined && !(Array.isArray(m.backlog) && m.backlog.every((b) => typeof b === "string"))) return undefined;
  const c = m.credentials;
  if (c !== undefined && (typeof c !== "object" || c === null || typeof c.iv !== "string" || typeof c.data !== "string")) return undefined;
  return m as QueuedMessage;
}
