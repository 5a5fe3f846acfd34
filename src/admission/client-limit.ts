/**
 * floodgate's built-in per-client limits on its own unauthenticated
 * endpoints (docs/admin-api.md, "Status"; docs/on-limit.md, "Status"):
 * reads each client address may make per minute, counted by the same
 * counters and algorithms as any rule, under an internal domain of their
 * own, so no rules document can loosen them.
 */
import type { Isolate } from "./isolate-context.ts";
import type { Defer } from "../http/defer.ts";
import type { HeaderDialect } from "../http/header-dialect.ts";
import { requestDescriptors } from "../request/descriptors.ts";
import { compileOnce } from "../rules/compile.ts";
import { admitDescriptors } from "./pipeline.ts";
import { refusal } from "./refusal.ts";

/** One built-in limit: its internal domain, the policy name clients see, and reads per client address per minute. */
export interface ClientLimitOptions {
  readonly domain: string;
  readonly name: string;
  readonly perMinute: number;
}

/** Answers a 429 (or FAILURE_MODE=closed's 503) when the reader's address is over its reads, else undefined. */
export type ClientLimit = (isolate: Isolate<unknown>, request: Request, defer: Defer, dialect?: HeaderDialect) => Promise<Response | undefined>;

/**
 * A per-client-address limit of `perMinute` reads, compiled once. Counters
 * out of reach follow FAILURE_MODE, logged and counted as for any request:
 * `open` lets the read through, `closed` is a 503. Its outcomes are not
 * counted in the metrics (its domain is not the operator's rules). The
 * limit throws InvalidClientIpError for a malformed address (the caller answers 400).
 *
 * @example
 * const limitStatusReads = clientLimit({ domain: "__floodgate_queued_status", name: "queued-status", perMinute: 60 });
 * const refused = await limitStatusReads(isolate, c.req.raw, deferOf(c));
 * if (refused) return refused;
 */
export function clientLimit(options: ClientLimitOptions): ClientLimit {
  const rules = compileOnce(
    {
      domain: options.domain,
      descriptors: [{ key: "remote_address", rate_limit: { name: options.name, unit: "minute", requests_per_unit: options.perMinute } }],
      routes: [{ match: {}, descriptors: [[{ key: "remote_address" }]] }],
    },
    `the ${options.name} limit`,
  );
  return async function limitClientReads(isolate, request, defer, dialect = isolate.settings.headerDialect) {
    const { settings } = isolate;
    const descriptors = requestDescriptors(rules(), request, {
      trustedProxyHops: settings.trustedProxyHops,
      trustedProxyHeader: settings.trustedProxyHeader,
    });
    const where = () => ({ path: new URL(request.url).pathname });
    const result = await admitDescriptors(isolate, descriptors, { timeoutMs: settings.decisionTimeoutMs, defer, where, countOutcomes: false }, defer);
    return result.allowed ? undefined : refusal(result, dialect);
  };
}
