/**
 * (d) One hot key through many isolates (docs/reliability.md, "Bounds and the tests that hold them"):
 * `edge-1` … `edge-E`, each its own isolate with its own coalescer, all on
 * the same counter objects, send one fresh key 3 × its limit (200 per
 * hour), 4 requests in flight per isolate: overshoot (allowed beyond the
 * limit) must be 0, every answer decided by the objects (a failure mode's
 * answer would make the run say nothing of hot keys). Every isolate is
 * warmed first (one request of another key), and waits up to 30 s for an
 * answer (DECISION_TIMEOUT_MS): on a loaded 2-core machine 5 s was seen
 * to time calls out, which made the failure mode decide. The calls per second the key's object decided under
 * that load (the hottest object's, from its own count) are printed. Once
 * from three regions (`request.cf` IAD, FRA, SIN in turn: the key warm in
 * each goes through its regional copies), once on the direct path (the control).
 */
import { arrival, DIRECT, freshKey, platformJson, send, THREE_REGIONS } from "../lib/traffic.mjs";
import { decisions } from "./faults.mjs";

const PATH = "/hot";
const LIMIT = 200;
const IN_FLIGHT_PER_ISOLATE = 4;

/** The services (id → vars) of `count` edges. */
export const edgeServices = (count) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`edge-${i + 1}`, { DECISION_TIMEOUT_MS: "30000" }]));

const objectStates = (homePort) => platformJson(homePort, "/__platform/objects?match=platform/shard/");

/** Calls each object decided between two listings (all of an instance started in between), the hottest object's first. */
function callsBetween(before, after) {
  return Object.entries(after)
    .map(([name, state]) => state.calls - (before[name]?.instance === state.instance ? before[name].calls : 0))
    .sort((a, b) => b - a);
}

/**
 * Rows of the many-isolates check.
 *
 * @example
 * const rows = await isolateChecks({ ports, edges: 64 });
 */
export async function isolateChecks({ ports, edges, log = () => {} }) {
  const edgePorts = Object.keys(edgeServices(edges)).map((id) => ports[id]);
  await send({ ports: edgePorts, path: PATH, key: freshKey("warm"), requests: edges, inFlight: edges });
  const rows = [];
  for (const cf of [THREE_REGIONS, DIRECT]) {
    const before = await objectStates(ports.home);
    const started = performance.now();
    const counts = await send({ ports: edgePorts, path: PATH, key: freshKey("hot"), requests: 3 * LIMIT, inFlight: IN_FLIGHT_PER_ISOLATE * edges, cf });
    const seconds = (performance.now() - started) / 1000;
    const [hottest = 0] = callsBetween(before, await objectStates(ports.home));
    const overshoot = Math.max(0, counts.allowed - LIMIT);
    const byObjects = (counts.decisions["status 200"] ?? 0) + (counts.decisions["status 429"] ?? 0);
    const rate = `${(counts.requests / seconds).toFixed(0)} req/s, the key's hottest object ${(hottest / seconds).toFixed(0)} calls/s`;
    log(
      `hot key through ${edges} isolates, ${arrival(cf)}: ${counts.allowed} of ${counts.requests} allowed (${decisions(counts)}) in ${seconds.toFixed(2)} s; ` +
        `the hottest object decided ${hottest} calls (${rate})`,
    );
    rows.push({
      check: `hot key: ${edges} isolates, limit 200, 600 requests, ${arrival(cf)} (${rate})`,
      measured: `overshoot ${overshoot} (${counts.allowed} allowed, ${counts.requests - byObjects} not decided by the objects)`,
      bound: "overshoot 0, all decided by the objects",
      pass: overshoot === 0 && byObjects === counts.requests,
    });
  }
  return rows;
}
