/**
 * The `x-api-key` of each request, by key pattern (see KeyPattern in
 * bench/scenarios.ts). The same logic as bench/lib/load.lua, for the
 * autocannon fallback; both are driven by the argument list from `keyArgs`.
 */
// @ts-nocheck

import { seededRandom, seedOf } from "./random.mjs";

/**
 * The load script's arguments for a pattern: pattern name, a nonce that
 * makes this round's keys its own, then the pattern's parameters.
 *
 * @example
 * keyArgs({ kind: "recurring", keys: 1000 }, "r1", 0); // ["recurring", "r1", "1000"]
 */
export function keyArgs(pattern, nonce, overRanks) {
  switch (pattern.kind) {
    case "recurring":
      return ["recurring", nonce, String(pattern.keys)];
    case "scan":
    case "hot":
      return [pattern.kind, nonce];
    case "fixed":
      return ["fixed", nonce, pattern.key];
    case "zipf":
      return ["zipf", nonce, String(pattern.keys), String(pattern.exponent), String(overRanks)];
    default:
      throw new Error(`unknown key pattern ${JSON.stringify(pattern)}`);
  }
}

/**
 * A key generator from `keyArgs` output, for one load thread.
 *
 * @example
 * const next = keySource(["scan", "r1"], 1);
 * next(); // "scan-r1-1-1"
 * next(); // "scan-r1-1-2"
 */
export function keySource(args, threadId) {
  const [pattern, nonce] = args;
  const random = seededRandom(seedOf(`${nonce}/${threadId}`));
  let seq = 0;
  switch (pattern) {
    case "recurring": {
      const keys = Number(args[2]);
      return () => `r-${1 + Math.floor(random() * keys)}`;
    }
    case "scan":
      return () => `scan-${nonce}-${threadId}-${++seq}`;
    case "hot":
      return () => `hot-${nonce}`;
    case "fixed":
      return () => args[2];
    case "zipf": {
      const keys = Number(args[2]);
      const exponent = Number(args[3]);
      const overRanks = Number(args[4]);
      const cdf = new Float64Array(keys);
      let total = 0;
      for (let r = 1; r <= keys; r++) cdf[r - 1] = total += r ** -exponent;
      for (let i = 0; i < keys; i++) cdf[i] /= total;
      return () => {
        const u = random();
        let lo = 0;
        let hi = keys - 1;
        while (lo < hi) {
          const mid = (lo + hi) >> 1;
          if (cdf[mid] < u) lo = mid + 1;
          else hi = mid;
        }
        const rank = lo + 1;
        return `${rank <= overRanks ? "over" : "user"}-${rank}`;
      };
    }
    default:
      throw new Error(`unknown key pattern ${pattern}`);
  }
}
