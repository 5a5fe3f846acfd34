/**
 * (c) Bursts get their quota (docs/reliability.md, "Bounds and the tests that hold them"): for every
 * algorithm, a fresh key with a limit of 100 (per hour, so nothing refills
 * within a burst) gets 120, then another fresh key 300, requests all at
 * once: 98–100 allowed. Once from three regions (`request.cf` from IAD,
 * FRA and SIN in turn, production's shape: a global key warm in a region
 * goes through its regional copy), on a fresh key (its burst goes to its
 * home: it is warm nowhere yet) and on a key made warm in all three regions
 * first (docs/placement.md, "Relay only what pays": 3 hits from each, one at
 * a time; the burst is then decided by the regions' copies from their
 * leases, 98–100 of 100 in all with the warm-up's 9); once on the direct
 * path (no `request.cf`, the control). The bursts go to a
 * service of their own, `bursts`, whose decisions wait up to 30 s for the
 * objects (DECISION_TIMEOUT_MS): with the default 1 s, a burst of 120 on a
 * loaded 2-core machine once came back all 200 (decisions not yet
 * recorded), as a timeout's failure mode answers. Every answer must be the
 * objects' decision.
 */

/** The service (id → vars) the bursts go to. */
export const BURST_SERVICES = { bursts: { DECISION_TIMEOUT_MS: "30000" } };
import { arrival, DIRECT, freshKey, send, THREE_REGIONS } from "../lib/traffic.mjs";
import { decisions } from "./faults.mjs";

const ALGORITHMS = ["fixed_window", "sliding_window_log", "sliding_window_counter", "token_bucket", "leaky_bucket", "gcra"];
const LIMIT = 100;
const HOUR_MS = 3_600_000;
/** Hits that make a key warm in each of the three regions (WARM_HITS in a row from each), sent one at a time before a relayed burst. */
const WARM_UP = 3 * THREE_REGIONS.length;
const RELAYED = "relayed";

/**
 * Rows of the burst checks, one per burst size and location (six algorithms each).
 *
 * @example
 * const rows = await burstChecks({ port: ports.bursts });
 */
export async function burstChecks({ port, log = () => {} }) {
  const rows = [];
  for (const shape of [RELAYED, THREE_REGIONS, DIRECT]) {
    const cf = shape === RELAYED ? THREE_REGIONS : shape;
    for (const size of [120, 300]) {
      const allowed = [];
      let notByObjects = 0;
      for (const algorithm of ALGORITHMS) {
        // A fixed window that rolls mid-burst hands out a second quota: not an overshoot; burst again on a new key.
        for (;;) {
          const hour = Math.floor(Date.now() / HOUR_MS);
          const key = freshKey(`burst-${algorithm}`);
          const warm = shape === RELAYED ? await send({ ports: [port], path: `/burst/${algorithm}`, key, requests: WARM_UP, inFlight: 1, cf }) : undefined;
          const counts = await send({ ports: [port], path: `/burst/${algorithm}`, key, requests: size, cf });
          if (Math.floor(Date.now() / HOUR_MS) !== hour) continue;
          log(
            `burst of ${size}, ${arrival(cf)}${warm ? `, warm (${warm.allowed} of ${WARM_UP} warm-up hits allowed)` : ""}, ${algorithm}: ${counts.allowed} allowed (${decisions(counts)})`,
          );
          allowed.push(counts.allowed + (warm?.allowed ?? 0));
          notByObjects += warm === undefined ? 0 : WARM_UP - warm.allowed;
          notByObjects += size - (counts.decisions["status 200"] ?? 0) - (counts.decisions["status 429"] ?? 0);
          break;
        }
      }
      rows.push({
        check: `bursts: ${size} at once, limit 100, ${arrival(cf)}${shape === RELAYED ? `, the key warm in each region (${WARM_UP} hits first, counted)` : shape === DIRECT ? "" : ", a fresh key"}; ${ALGORITHMS.length} algorithms`,
        measured: `${allowed.join(", ")} allowed${notByObjects > 0 ? `, ${notByObjects} not decided by the objects` : ""}`,
        bound: "98–100 each, all decided by the objects",
        pass: notByObjects === 0 && allowed.every((a) => a >= LIMIT - 2 && a <= LIMIT),
      });
    }
  }
  return rows;
}
