/**
 * (c) Bursts get their quota (docs/reliability.md, "Bounds and the tests that hold them"): for every
 * algorithm, a fresh key with a limit of 100 (per hour, so nothing refills
 * within a burst) gets 120, then another fresh key 300, requests all at
 * once: 98–100 allowed. Once as a request with no location (no
 * `request.cf`: region local), once from Frankfurt (`request.cf` set: a
 * global limit goes through the regional relay).
 */
import { FRANKFURT, freshKey, send } from "../lib/traffic.mjs";

const ALGORITHMS = ["fixed_window", "sliding_window_log", "sliding_window_counter", "token_bucket", "leaky_bucket", "gcra"];
const LIMIT = 100;
const HOUR_MS = 3_600_000;

/**
 * Rows of the burst checks, one per burst size and location (six algorithms each).
 *
 * @example
 * const rows = await burstChecks({ port: ports.home });
 */
export async function burstChecks({ port, log = () => {} }) {
  const rows = [];
  for (const cf of [undefined, FRANKFURT]) {
    for (const size of [120, 300]) {
      const allowed = [];
      for (const algorithm of ALGORITHMS) {
        // A fixed window that rolls mid-burst hands out a second quota: not an overshoot; burst again on a new key.
        for (;;) {
          const hour = Math.floor(Date.now() / HOUR_MS);
          const counts = await send({ ports: [port], path: `/burst/${algorithm}`, key: freshKey(`burst-${algorithm}`), requests: size, cf });
          if (Math.floor(Date.now() / HOUR_MS) !== hour) continue;
          log(`burst of ${size}, ${cf ? "cf FRA" : "no cf"}, ${algorithm}: ${counts.allowed} allowed, ${counts.refused} refused, ${counts.other} other`);
          allowed.push(counts.allowed);
          break;
        }
      }
      rows.push({
        check: `bursts: ${size} at once, limit 100, ${cf ? "request.cf from FRA (relay)" : "no request.cf"}; ${ALGORITHMS.length} algorithms`,
        measured: `${allowed.join(", ")} allowed`,
        bound: "98–100 each",
        pass: allowed.every((a) => a >= LIMIT - 2 && a <= LIMIT),
      });
    }
  }
  return rows;
}
