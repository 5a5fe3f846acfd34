/**
 * `floodgate/limiter`: Upstash ratelimit's `Ratelimit` over floodgate's
 * counters (docs/from-upstash.md).
 *
 * @example
 * import { Ratelimit } from "floodgate/limiter";
 * const ratelimit = new Ratelimit({ counters: env.COUNTERS, limiter: Ratelimit.slidingWindow(10, "10 s") });
 * const { success } = await ratelimit.limit("api");
 */
export type { Duration } from "../dropins/duration.ts";
export type { Limiter } from "../dropins/limiters.ts";
export type { RatelimitConfig } from "../dropins/options.ts";
export { type LimitOptions, Ratelimit, type RatelimitResponse } from "../dropins/ratelimit.ts";
