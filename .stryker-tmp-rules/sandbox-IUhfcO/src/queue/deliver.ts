/**
 * One delivery attempt of a queued request to the origin it was meant for.
 */
// @ts-nocheck

import type { AttemptOutcome } from "./status-object.ts";
import { fromBase64, type QueuedMessage } from "./message.ts";

/** How long one attempt may take before it counts as a network failure. */
export const DELIVERY_TIMEOUT_MS = 30_000;

/** Header telling the origin which queued request this is (for idempotency). */
export const QUEUED_ID_HEADER = "X-Floodgate-Queued-Id";
/** Header telling the origin which attempt this is (1 for the first). */
export const ATTEMPT_HEADER = "X-Floodgate-Attempt";

/**
 * Send the request to its target. A 5xx or a network error (timeout
 * included) is a failure to retry; any other status is delivered. With no
 * target (no ORIGIN_URL: the built-in echo) there is nothing to send, and it
 * counts as delivered with 200.
 *
 * @example
 * const outcome = await deliver(message, 1); // { delivered: true, status: 201 }
 */
export async function deliver(message: QueuedMessage, attempt: number): Promise<AttemptOutcome> {
  const { method, target, headers, body } = message.request;
  if (target === null) return { delivered: true, status: 200 };
  const sent = new Headers(headers as [string, string][]);
  sent.set(QUEUED_ID_HEADER, message.id);
  sent.set(ATTEMPT_HEADER, String(attempt));
  const hasBody = body !== null && method !== "GET" && method !== "HEAD";
  try {
    const response = await fetch(target, {
      method,
      headers: sent,
      body: hasBody ? fromBase64(body) : undefined,
      redirect: "manual",
      signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
    });
    // Only the status is kept; release the connection.
    await response.body?.cancel();
    if (response.status >= 500) return { delivered: false, status: response.status, error: `the origin answered ${response.status}` };
    return { delivered: true, status: response.status };
  } catch (error) {
    return { delivered: false, error: `the origin could not be reached: ${String(error)}` };
  }
}
