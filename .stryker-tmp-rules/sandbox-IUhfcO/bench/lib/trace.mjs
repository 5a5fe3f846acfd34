/**
 * The seeded request trace the accuracy bench replays: many keys, each
 * with its own base rate and on/off bursts, Poisson arrivals, integer-ms
 * timestamps. It is synthetic: real traffic (like the 400 M requests behind
 * Cloudflare's figure) has far more keys that never come near their limit,
 * so the error rates here are deliberately pessimistic.
 */
// @ts-nocheck

import { exponential, seededRandom } from "./random.mjs";

/**
 * Trace parameters. Base rates are log-uniform between `minRate` and
 * `maxRate` times the limit's own rate (limit / window), so some keys idle
 * far below the limit and some sit well above it. Each key alternates calm
 * periods (rate × `calmFactor`) and bursts (rate × `burstFactor`).
 */
export const TRACE_DEFAULTS = {
  seed: 20_240_601,
  keys: 2_000,
  durationMs: 20 * 60_000,
  minRate: 0.01,
  maxRate: 3,
  calmMeanMs: 5 * 60_000,
  burstMeanMs: 30_000,
  calmFactor: 0.3,
  burstFactor: 4,
  // An arbitrary but fixed epoch offset, so window alignment is not at 0.
  startMs: 1_700_000_000_000,
};

/**
 * The arrival times of one key, ascending integer ms. Every key has its own
 * generator (seeded by trace seed and key index), so keys can be generated
 * and replayed one at a time without holding the whole trace in memory.
 *
 * @example
 * const times = keyArrivals({ ...TRACE_DEFAULTS, keys: 10 }, 3, 100 / 60_000);
 * times.length; // hundreds; times[i] <= times[i + 1]
 */
export function keyArrivals(options, keyIndex, limitRatePerMs) {
  const random = seededRandom((options.seed ^ Math.imul(keyIndex + 1, 0x9e3779b1)) >>> 0);
  const logMin = Math.log(options.minRate);
  const base = Math.exp(logMin + random() * (Math.log(options.maxRate) - logMin)) * limitRatePerMs;
  const end = options.startMs + options.durationMs;
  const times = [];
  let t = options.startMs;
  let bursting = random() < options.burstMeanMs / (options.burstMeanMs + options.calmMeanMs);
  while (t < end) {
    const periodEnd = Math.min(end, t + exponential(random, bursting ? options.burstMeanMs : options.calmMeanMs));
    const rate = base * (bursting ? options.burstFactor : options.calmFactor);
    for (let at = t + exponential(random, 1 / rate); at < periodEnd; at += exponential(random, 1 / rate)) times.push(Math.floor(at));
    t = periodEnd;
    bursting = !bursting;
  }
  return times;
}
