/**
 * Throttling of failed admin authentication per client address
 * (docs/admin-api.md, "Authentication"): a wrong bearer token is counted in
 * a counter of floodgate's own, like any limit, and past
 * `AUTH_FAILURES_PER_MINUTE` a client is answered 429 — with the right
 * token too, so guessing past the limit learns nothing. The rejection is a
 * certain block, so an isolate that has seen it answers the next attempts
 * itself, before comparing tokens, without asking an object.
 */
import { admitDescriptors, knownRefusalMs, retryAfterSeconds, tooManyAuthFailures } from "../admission/index.ts";
import type { Isolate } from "../admission/isolate-context.ts";
import type { Defer } from "../http/defer.ts";
import { clientAddress, InvalidClientIpError, UNKNOWN_CLIENT, type TrustedProxyHeader } from "../request/client-ip.ts";
import { compileOnce } from "../rules/index.ts";
import type { DomainDescriptors } from "../rules/types.ts";

/** Wrong tokens a client address may present per minute (a sliding log: exact); more are answered 429. */
export const AUTH_FAILURES_PER_MINUTE = 10;

/** The counters' domain: a name of floodgate's, in objects of their own. */
export const AUTH_DOMAIN = "floodgate.admin-auth";

const rules = compileOnce(
  {
    domain: AUTH_DOMAIN,
    descriptors: [{ key: "remote_address", rate_limit: { unit: "minute", requests_per_unit: AUTH_FAILURES_PER_MINUTE, algorithm: "sliding_window_log" } }],
  },
  "the admin authentication throttle",
);

function failures(address: string): DomainDescriptors[] {
  const domain = rules().domains.get(AUTH_DOMAIN);
  if (domain === undefined) throw new Error(`${AUTH_DOMAIN}: the throttle's own rules did not compile`);
  return [{ domain, descriptors: [[{ key: "remote_address", value: address }]] }];
}

/**
 * The client address failures are counted under (the one `remote_address`
 * reads; a malformed one counts with the requests that carry none).
 *
 * @example
 * const address = authClient(c.req.raw.headers, isolate.settings.trustedProxyHops, isolate.settings.trustedProxyHeader);
 */
export function authClient(headers: Headers, trustedProxyHops: number, proxyHeader: TrustedProxyHeader): string {
  try {
    return clientAddress(headers, trustedProxyHops, proxyHeader);
  } catch (error) {
    if (error instanceof InvalidClientIpError) return UNKNOWN_CLIENT;
    throw error;
  }
}

/**
 * The 429 for `address` when this isolate already knows it is over the
 * limit (a cached block); undefined otherwise. Asks no object.
 *
 * @example
 * const throttled = knownThrottled(isolate, address, defer);
 * if (throttled) return throttled;
 */
export function knownThrottled(isolate: Isolate, address: string, defer: Defer): Response | undefined {
  const retryAfterMs = knownRefusalMs(isolate, failures(address), defer);
  return retryAfterMs === undefined ? undefined : tooManyAuthFailures(Math.max(1, Math.ceil(retryAfterMs / 1000)), AUTH_FAILURES_PER_MINUTE);
}

/**
 * Count one failed authentication of `address`: the 429 when it is over the
 * limit, else undefined (the caller answers 401). A counter that cannot be
 * reached is logged and counted as any failure; the answer stays a 401
 * whatever FAILURE_MODE says: the token was refused anyway.
 *
 * @example
 * return (await countFailure(isolate, address, defer)) ?? unauthorized();
 */
export async function countFailure(isolate: Isolate, address: string, defer: Defer): Promise<Response | undefined> {
  const where = () => ({ throttle: AUTH_DOMAIN });
  const result = await admitDescriptors(isolate, failures(address), { timeoutMs: isolate.settings.decisionTimeoutMs, where, countOutcomes: false }, defer);
  return result.allowed || result.reason === "failure_closed" ? undefined : tooManyAuthFailures(retryAfterSeconds(result), AUTH_FAILURES_PER_MINUTE);
}
