/**
 * (d) One hot key through many isolates (docs/reliability.md, "Hot keys"):
 * `edge-1` … `edge-E`, each its own isolate with its own coalescer, all on
 * the same counter objects, send one fresh key 3 × its limit (200 per
 * hour), 8 requests in flight per isolate: overshoot (allowed beyond the
 * limit) must be 0. The object calls per second that load cost (all
 * counter objects' decided calls, from their own counts) are printed.
 */
import { freshKey, platformJson, send } from "../lib/traffic.mjs";

const PATH = "/hot";
const LIMIT = 200;
const IN_FLIGHT_PER_ISOLATE = 8;

/** The ids of `count` edge services. */
export const edgeServices = (count) => Array.from({ length: count }, (_, i) => `edge-${i + 1}`);

const objectCalls = async (homePort) => Object.values(await platformJson(homePort, "/__platform/objects")).reduce((sum, o) => sum + o.calls, 0);

/**
 * Rows of the many-isolates check.
 *
 * @example
 * const rows = await isolateChecks({ ports, edges: 64 });
 */
export async function isolateChecks({ ports, edges, log = () => {} }) {
  const edgePorts = edgeServices(edges).map((id) => ports[id]);
  const callsBefore = await objectCalls(ports.home);
  const started = performance.now();
  const counts = await send({ ports: edgePorts, path: PATH, key: freshKey("hot"), requests: 3 * LIMIT, inFlight: IN_FLIGHT_PER_ISOLATE * edges });
  const seconds = (performance.now() - started) / 1000;
  const calls = (await objectCalls(ports.home)) - callsBefore;
  const overshoot = Math.max(0, counts.allowed - LIMIT);
  log(
    `hot key through ${edges} isolates: ${counts.allowed} of ${counts.requests} allowed, ${counts.refused} refused, ${counts.other} other, in ${seconds.toFixed(2)} s; ` +
      `${calls} object calls (${(calls / seconds).toFixed(0)}/s, ${(counts.requests / seconds).toFixed(0)} requests/s)`,
  );
  return [
    {
      check: `hot key: ${edges} isolates, limit 200, 600 requests (${(counts.requests / seconds).toFixed(0)} req/s); object calls ${(calls / seconds).toFixed(0)}/s`,
      measured: `overshoot ${overshoot} (${counts.allowed} allowed${counts.other > 0 ? `, ${counts.other} not 200/429` : ""})`,
      bound: "overshoot 0, every answer 200 or 429",
      pass: overshoot === 0 && counts.other === 0,
    },
  ];
}
