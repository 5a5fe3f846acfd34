/**
 * The test origin's records (see global-setup.mjs): what arrived, when, for
 * requests tagged with `x-test-tag`.
 */
// @ts-nocheck

import { testEnv } from "./app.ts";

/** One request as the test origin saw it. */
export interface OriginRecord {
  readonly method: string;
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly bodyLength: number;
  /** When its headers arrived (ms since epoch, the machine's clock). */
  readonly arrivedAt: number;
  /** The status the origin answered with. */
  readonly status: number;
}

/**
 * Every tagged request that reached the origin, in arrival order.
 *
 * @example
 * const seen = await originRecords("delay-1");
 */
export async function originRecords(tag: string): Promise<OriginRecord[]> {
  const response = await fetch(`${testEnv.TEST_ORIGIN_URL}/__records?tag=${encodeURIComponent(tag)}`);
  return (await response.json()) as OriginRecord[];
}

/**
 * Polls `probe` every 100 ms until it returns something other than
 * undefined, or fails after `timeoutMs`.
 *
 * @example
 * const status = await eventually(async () => (await read()).state === "delivered" ? true : undefined, 10_000);
 */
export async function eventually<T>(probe: () => Promise<T | undefined>, timeoutMs: number, what = "condition"): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} not reached within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

let tags = 0;

/**
 * A tag no other test uses.
 *
 * @example
 * const tag = uniqueTag("queue");
 */
export function uniqueTag(prefix: string): string {
  tags += 1;
  return `${prefix}-${Date.now()}-${tags}`;
}

/** Requests of a tag at the test origin's `/slow`: in flight now, the most at once, and all that arrived. */
export interface InFlight {
  readonly now: number;
  readonly max: number;
  readonly total: number;
}

/**
 * What the test origin counted of a tag's `/slow` requests.
 *
 * @example
 * expect((await originInFlight(tag)).max).toBe(4);
 */
export async function originInFlight(tag: string): Promise<InFlight> {
  const response = await fetch(`${testEnv.TEST_ORIGIN_URL}/__inflight?tag=${encodeURIComponent(tag)}`);
  return (await response.json()) as InFlight;
}
