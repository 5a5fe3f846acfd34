/**
 * The limit on `GET /__ratelimit/queued/<id>` (docs/on-limit.md,
 * "Status"): each read may cost an object request, so a client
 * address gets `STATUS_READS_PER_MINUTE` of them, counted by the same
 * counters and algorithms as any rule, under an internal domain
 * (src/admission/client-limit.ts).
 */
import { clientLimit } from "../admission/index.ts";

/** Status reads one client address may make per minute. */
export const STATUS_READS_PER_MINUTE = 60;

/** The internal domain that counts status reads (its counters live beside the rules' own). */
export const STATUS_DOMAIN = "__floodgate_queued_status";

/**
 * A 429 when the reader's address is over its status reads, else undefined.
 * Counters out of reach follow FAILURE_MODE, logged and counted as for any
 * request: `open` lets the read through, `closed` is a 503.
 * Throws InvalidClientIpError for a malformed address (the caller answers 400).
 *
 * @example
 * const refused = await limitStatusReads(isolate, c.req.raw, deferOf(c));
 * if (refused) return refused;
 */
export const limitStatusReads = clientLimit({ domain: STATUS_DOMAIN, name: "queued-status", perMinute: STATUS_READS_PER_MINUTE });
