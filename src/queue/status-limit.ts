/**
 * The limit on `GET /__ratelimit/queued/<id>` (docs/on-limit.md,
 * "Status"): each read may cost an object request, so a client
 * address gets `STATUS_READS_PER_MINUTE` of them, counted by the same
 * counters and algorithms as any rule, under an internal domain.
 */
import { admitDescriptors, refusal } from "../admission/index.ts";
import type { Isolate } from "../context/isolate.ts";
import type { Defer } from "../http/defer.ts";
import { requestDescriptors } from "../request/descriptors.ts";
import { compileOnce } from "../rules/compile.ts";

/** Status reads one client address may make per minute. */
export const STATUS_READS_PER_MINUTE = 60;

/** The internal domain that counts status reads (its counters live beside the rules' own). */
export const STATUS_DOMAIN = "__floodgate_queued_status";

const statusRules = compileOnce(
  {
    domain: STATUS_DOMAIN,
    descriptors: [{ key: "remote_address", rate_limit: { name: "queued-status", unit: "minute", requests_per_unit: STATUS_READS_PER_MINUTE } }],
    routes: [{ match: {}, descriptors: [[{ key: "remote_address" }]] }],
  },
  "the queued-status limit",
);

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
export async function limitStatusReads(isolate: Isolate<unknown>, request: Request, defer: Defer): Promise<Response | undefined> {
  const { settings } = isolate;
  const descriptors = requestDescriptors(statusRules(), request, {
    trustedProxyHops: settings.trustedProxyHops,
    trustedProxyHeader: settings.trustedProxyHeader,
  });
  const where = () => ({ path: new URL(request.url).pathname });
  const result = await admitDescriptors(isolate, descriptors, { timeoutMs: settings.decisionTimeoutMs, defer, where, countOutcomes: false }, defer);
  return result.allowed ? undefined : refusal(result, settings.headerDialect);
}
