/**
 * `floodgate/limiter`: Upstash ratelimit's `Ratelimit` over floodgate's
 * counters (docs/from-upstash.md).
 *
 * @example
 * import { Ratelimit } from "floodgate/limiter";
 * const ratelimit = new Ratelimit({ counters: env.COUNTERS, limiter: Ratelimit.slidingWindow(10, "10 s") });
 * const { success } = await ratelimit.limit("api");
 */
export type { Duration } from "../ratelimit/duration.ts";
export type { Limiter } from "../ratelimit/limiters.ts";
export type { RatelimitConfig } from "../ratelimit/options.ts";
export { type LimitOptions, Ratelimit, type RatelimitResponse } from "../ratelimit/ratelimit.ts";
