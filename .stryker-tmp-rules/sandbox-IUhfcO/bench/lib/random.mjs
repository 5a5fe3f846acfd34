/**
 * Seeded pseudo-random numbers for the bench: the same seed gives the same
 * trace and the same key sequence on every machine, so accuracy figures are
 * reproducible to the last request.
 */
// @ts-nocheck


/**
 * mulberry32: a 32-bit generator, fast and good enough for workloads (not
 * for anything secret). Returns floats in [0, 1).
 *
 * @example
 * const random = seededRandom(42);
 * random(); // 0.6011037519201636, every time
 */
export function seededRandom(seed) {
  let a = seed >>> 0;
  return function random() {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A 32-bit seed from any text (FNV-1a), so named runs get stable seeds.
 *
 * @example
 * seedOf("round-1"); // same number on every run
 */
export function seedOf(text) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/**
 * An exponentially distributed wait with the given mean (Poisson arrivals).
 *
 * @example
 * const gap = exponential(random, 250); // ms until the next request, mean 250
 */
export function exponential(random, mean) {
  return -Math.log(1 - random()) * mean;
}
