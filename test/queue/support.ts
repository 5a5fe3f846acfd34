/**
 * Helpers for the queue tests: rules with a queue limit, and reading a
 * queued request's status through the gateway.
 */
import { vi } from "vitest";
import { gateway, testEnv } from "../support/app.ts";
import { driveObject, OBJECT_EPOCH } from "../support/driven-object.ts";
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

/**
 * A client's queue limit on one driven clock: the gateway's isolate, the
 * client's counter object (per-key placement) and the consumer's waits for
 * slots (`scheduler.wait`, which move the clock by what they wait, once
 * `open` was called) all read `clock.at`; `delivered` lists the clock's
 * instant of every request sent to the origin with `x-test-tag: tag`.
 * `restore` ends it.
 *
 * @example
 * const q = await queueOnOneClock({ unit: "second", requests_per_unit: 4, algorithm: "gcra", burst: 1 }, ip, tag);
 */
export async function queueOnOneClock(rateLimit: Record<string, unknown>, ip: string, tag: string) {
  const rules = { ...queueRules(rateLimit), placement: "per_key" };
  const clock = { at: OBJECT_EPOCH };
  await driveObject(testEnv.COUNTERS.getByName(`${rules.domain}/key/${JSON.stringify([rules.domain, ["remote_address", ip]])}`), () => clock.at);
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const waits = vi.spyOn(scheduler, "wait").mockImplementation(async (ms: number) => {
    await opened;
    clock.at += ms;
  });
  const delivered: { at: number; queued: boolean }[] = [];
  const realFetch = globalThis.fetch;
  const fetches = vi.spyOn(globalThis, "fetch").mockImplementation((input, init) => {
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    if (headers.get("x-test-tag") === tag) delivered.push({ at: clock.at, queued: headers.has("x-floodgate-queued-id") });
    return realFetch(input, init);
  });
  return {
    clock,
    call: queueGateway(rules, testEnv.TEST_ORIGIN_URL, { now: () => clock.at }),
    delivered,
    open,
    restore: () => {
      waits.mockRestore();
      fetches.mockRestore();
    },
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

/** A gateway that forwards to the test origin (or `origin`), with an ADMIN_TOKEN; `options` as for `gateway` (a driven clock). */
export function queueGateway(rules: unknown, origin: string | undefined = testEnv.TEST_ORIGIN_URL, options: Parameters<typeof gateway>[2] = {}) {
  return gateway(rules, { ...(origin !== undefined ? { ORIGIN_URL: origin } : {}), ADMIN_TOKEN: ADMIN }, options);
}

export const ADMIN = "queue-admin-token-0123456789abcdef";

/**
 * Polls `location` as `ip` until its state is `state`. It polls as the admin:
 * a client's own reads are limited per address (src/queue/status-limit.ts),
 * and several pollers at 10 a second would spend that limit; the owner's
 * reads are held by test/queue/status.test.ts.
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
      const view = await (await call(location, { ip, headers: { authorization: `Bearer ${ADMIN}` } })).json<QueuedView>();
      return view.state === state ? view : undefined;
    },
    timeoutMs,
    `${location} ${state}`,
  );
}
