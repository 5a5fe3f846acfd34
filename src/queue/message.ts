/**
 * The queue message of a request put aside by `on_limit: "queue"`: the
 * request itself (method, target, headers, body) and the counters its
 * delivery must take slots from. Plain JSON, so it crosses the queue as-is
 * and stays readable in the dead-letter queue.
 */

/**
 * Largest request body that is queued; a larger one is a 413. Cloudflare
 * Queues take messages up to 128 KB, and the body travels base64-encoded
 * (4/3 of its size), which leaves ~40 KB for the URL and headers.
 *
 * @example
 * QUEUE_MAX_BODY_BYTES; // 65536
 */
export const QUEUE_MAX_BODY_BYTES = 64 * 1024;

/** Cloudflare Queues' per-message limit (128 KB, counted in thousands), which internal metadata counts toward. */
export const QUEUE_PLATFORM_MESSAGE_BYTES = 128_000;

/** Room left for that metadata (Cloudflare states up to ~100 bytes; more is kept, so a send never fails on size). */
export const QUEUE_METADATA_MARGIN_BYTES = 256;

/**
 * Largest whole message (JSON, UTF-8) that is queued: the platform's limit
 * less the metadata margin. A request whose headers push it past this is a
 * 413 as well, never a 503 that a retry could not cure.
 *
 * @example
 * new TextEncoder().encode(JSON.stringify(message)).byteLength <= QUEUE_MAX_MESSAGE_BYTES; // 127,744
 */
export const QUEUE_MAX_MESSAGE_BYTES = QUEUE_PLATFORM_MESSAGE_BYTES - QUEUE_METADATA_MARGIN_BYTES;

// The message's shape is a stored format (docs/stored-formats.md): it lives in src/stored/queue-message.ts.
export { asQueuedMessage, type PaceTarget, QUEUE_MESSAGE_VERSION, type QueuedMessage, type SealedCredentials } from "../stored/queue-message.ts";

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
