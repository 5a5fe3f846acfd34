/**
 * One delivery attempt of a queued request to the origin it was meant for.
 */
import type { AttemptOutcome } from "../durable/queue/status-object.ts";
import { fromBase64, type QueuedMessage } from "./message.ts";
import { CREDENTIAL_HEADERS } from "./credentials.ts";
import { signatureHeaders } from "./signature.ts";

/** How long one attempt may take before it counts as a network failure. */
export const DELIVERY_TIMEOUT_MS = 30_000;

/** Header telling the origin which queued request this is (for idempotency). */
export const QUEUED_ID_HEADER = "X-Floodgate-Queued-Id";
/** Header telling the origin which attempt this is (1 for the first). */
export const ATTEMPT_HEADER = "X-Floodgate-Attempt";

/** What a delivery adds to the stored request. */
export interface DeliveryOptions {
  /** Credential headers opened from the message (docs/on-limit.md, "Credentials"). */
  readonly credentials?: readonly [string, string][];
  /** QUEUE_SECRET: sign the delivery (signature.ts); without it there is no signature. */
  readonly secret?: string;
}

/**
 * Whether a message's target is at the configured origin: ORIGIN_URL's
 * scheme, host and port, under its path prefix. A message naming anywhere
 * else (a forged or stale one, or ORIGIN_URL since changed) is never sent:
 * the consumer delivers only to the origin it is configured with. A message
 * without a target (the built-in echo) needs no origin.
 *
 * @example
 * targetAtOrigin("https://api.example.com/v1/hook", new URL("https://api.example.com/v1")); // true
 * targetAtOrigin("https://evil.example/hook", new URL("https://api.example.com")); // false
 */
export function targetAtOrigin(target: string | null, origin: URL | undefined): boolean {
  if (target === null) return true;
  if (origin === undefined || !URL.canParse(target)) return false;
  const url = new URL(target);
  const prefix = origin.pathname.replace(/\/+$/, "");
  return url.origin === origin.origin && url.username === "" && url.password === "" && (url.pathname === prefix || url.pathname.startsWith(`${prefix}/`));
}

/**
 * Send the request to its target. A 5xx or a network error (timeout
 * included) is a failure to retry; any other status is delivered. With no
 * target (no ORIGIN_URL: the built-in echo) there is nothing to send, and it
 * counts as delivered with 200.
 *
 * @example
 * const outcome = await deliver(message, 1); // { delivered: true, status: 201 }
 */
export async function deliver(message: QueuedMessage, attempt: number, options: DeliveryOptions = {}): Promise<AttemptOutcome> {
  const { method, target, headers, body } = message.request;
  if (target === null) return { delivered: true, status: 200 };
  const sent = new Headers(headers as [string, string][]);
  // One line each: the signature covers each credential's value as the origin reads it.
  for (const [name, value] of options.credentials ?? []) sent.set(name, value);
  sent.set(QUEUED_ID_HEADER, message.id);
  sent.set(ATTEMPT_HEADER, String(attempt));
  const hasBody = body !== null && method !== "GET" && method !== "HEAD";
  const bytes = hasBody ? fromBase64(body) : null;
  if (options.secret !== undefined) {
    const url = new URL(target);
    const credentials = CREDENTIAL_HEADERS.map((name) => sent.get(name) ?? "");
    const parts = {
      method,
      host: url.host,
      pathAndQuery: url.pathname + url.search,
      id: message.id,
      attempt,
      timestamp: Math.floor(Date.now() / 1000),
      body: bytes,
      credentials,
    };
    for (const [name, value] of await signatureHeaders(options.secret, parts)) sent.set(name, value);
  }
  try {
    const response = await fetch(target, {
      method,
      headers: sent,
      body: bytes ?? undefined,
      redirect: "manual",
      signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
    });
    // Only the status is kept; release the connection.
    await response.body?.cancel();
    if (response.status >= 500) return { delivered: false, status: response.status, error: `the origin answered ${response.status}` };
    return { delivered: true, status: response.status };
  } catch (error) {
    // The status endpoint shows `error` to the client: the cause goes to the log only.
    console.error(JSON.stringify({ event: "floodgate.queue.origin_unreachable", id: message.id, attempt, error: String(error) }));
    return { delivered: false, error: "the origin could not be reached" };
  }
}
