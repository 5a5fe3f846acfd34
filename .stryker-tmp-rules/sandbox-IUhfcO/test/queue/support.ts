/**
 * Helpers for the queue tests: rules with a queue limit, and reading a
 * queued request's status through the gateway.
 */
// @ts-nocheck

import { gateway, testEnv } from "../support/app.ts";
import { eventually } from "../support/origin.ts";

let domains = 0;

/**
 * Rules queueing what is over `rateLimit`, per client IP (and per API key on `/keyed/*`).
 *
 * @example
 * const rules = queueRules({ unit: "second", requests_per_unit: 4, algorithm: "gcra", burst: 1 });
 */
export function queueRules(rateLimit: Record<string, unknown>) {
  return {
    domain: `queue-${++domains}`,
    descriptors: [
      { key: "remote_address", rate_limit: { name: "webhooks", ...rateLimit, on_limit: "queue" } },
      { key: "api_key", rate_limit: { name: "keyed", ...rateLimit, on_limit: "queue" } },
    ],
    routes: [
      { match: { path: "/keyed/*" }, descriptors: [[{ key: "api_key", header: "x-api-key" }]] },
      { match: {}, descriptors: [[{ key: "remote_address" }]] },
    ],
  };
}

/** The body of `GET /__ratelimit/queued/<id>`. */
export interface QueuedView {
  readonly id: string;
  readonly state: "queued" | "delivered" | "dead_lettered";
  readonly method: string;
  readonly path: string;
  readonly attempts: number;
  readonly origin_status?: number;
  readonly last_error?: string;
  readonly delivered_at?: string;
  readonly dead_lettered_at?: string;
}

/** A gateway that forwards to the test origin (or `origin`), with an ADMIN_TOKEN. */
export function queueGateway(rules: unknown, origin: string | undefined = testEnv.TEST_ORIGIN_URL) {
  return gateway(rules, { ...(origin !== undefined ? { ORIGIN_URL: origin } : {}), ADMIN_TOKEN: ADMIN });
}

export const ADMIN = "queue-admin-token";

/**
 * Polls `location` as `ip` until its state is `state`.
 *
 * @example
 * const view = await untilState(call, location, ip, "delivered", 10_000);
 */
export async function untilState(
  call: ReturnType<typeof gateway>,
  location: string,
  ip: string,
  state: QueuedView["state"],
  timeoutMs: number,
): Promise<QueuedView> {
  return eventually(
    async () => {
      const view = await (await call(location, { ip })).json<QueuedView>();
      return view.state === state ? view : undefined;
    },
    timeoutMs,
    `${location} ${state}`,
  );
}
