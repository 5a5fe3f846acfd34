/**
 * The queue message of a request put aside by `on_limit: "queue"`: the
 * request itself (method, target, headers, body) and the counters its
 * delivery must take slots from. Plain JSON, so it crosses the queue as-is
 * and stays readable in the dead-letter queue.
 */
// @ts-nocheck

import type { CounterCall } from "../durable/protocol.ts";

/**
 * Largest request body that is queued; a larger one is a 413. Cloudflare
 * Queues take messages up to 128 KB, and the body travels base64-encoded
 * (4/3 of its size), which leaves ~40 KB for the URL and headers.
 *
 * @example
 * QUEUE_MAX_BODY_BYTES; // 65536
 */
export const QUEUE_MAX_BODY_BYTES = 64 * 1024;

/**
 * Largest whole message (JSON, UTF-8): Cloudflare Queues' own per-message
 * limit. A request whose headers push it past this is a 413 as well.
 *
 * @example
 * new TextEncoder().encode(JSON.stringify(message)).byteLength <= QUEUE_MAX_MESSAGE_BYTES;
 */
export const QUEUE_MAX_MESSAGE_BYTES = 128_000;

/** A counter the delivery takes a slot from (the one that queued it). */
export interface PaceTarget {
  /** Name of the CounterObject that owns the counter. */
  readonly object: string;
  /** The counter's call; pacing sends it as a `reserve` call, in which bucket windows carry `reserve: true`. */
  readonly call: CounterCall;
}

/** Version 1 of the message format. */
export interface QueuedMessage {
  readonly v: 1;
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
  /** Set on the copy sent to the dead-letter queue: why the last attempt failed. */
  readonly failure?: { readonly attempts: number; readonly status?: number; readonly error?: string };
}

/**
 * Bytes as base64, in chunks (spreading 64 KiB into one call would overflow the stack).
 *
 * @example
 * toBase64(new TextEncoder().encode("hi")); // "aGk="
 */
export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/**
 * The bytes of a base64 string.
 *
 * @example
 * new TextDecoder().decode(fromBase64("aGk=")); // "hi"
 */
export function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/**
 * Size of a message as the queue counts it (UTF-8 JSON).
 *
 * @example
 * messageBytes({ v: 1 }); // 8
 */
export function messageBytes(message: unknown): number {
  return new TextEncoder().encode(JSON.stringify(message)).byteLength;
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
  if (typeof m !== "object" || m === null || m.v !== 1 || typeof m.id !== "string" || typeof m.queuedAt !== "number") return undefined;
  const r = m.request;
  if (typeof r !== "object" || r === null || typeof r.method !== "string" || typeof r.path !== "string") return undefined;
  if (!(r.target === null || typeof r.target === "string") || !(r.body === null || typeof r.body === "string")) return undefined;
  if (!Array.isArray(r.headers) || !r.headers.every((h) => Array.isArray(h) && h.length === 2 && h.every((x) => typeof x === "string"))) return undefined;
  if (!Array.isArray(m.pace) || !m.pace.every((p) => typeof p?.object === "string" && typeof p?.call?.key === "string" && Array.isArray(p.call.limits)))
    return undefined;
  return m as QueuedMessage;
}
