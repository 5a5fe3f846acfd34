/**
 * (j) Isolates come and go (docs/reliability.md, "Failure mode"): the hits
 * an isolate allowed on its own while its objects could not answer are
 * debts, paid with its next call; an isolate the platform evicts before
 * that takes them with it. `churn-1` … `churn-3` (each its own isolate)
 * find the counters unreachable; each gets 100 requests of one fresh key
 * of limit 50 from three regions (each allows at most 50 on its own, owing
 * them); then each isolate is reset (evicted, its debts unpaid), the
 * counters come back, and the same isolates (new ones now) get 100 more.
 * Bound: an evicted isolate's unpaid debts cost at most what it allowed
 * on its own, at most the limit per window: allowed in all ≤ 50 × (3 + 1).
 */
import { arrival, freshKey, platformJson, resetAll, send, THREE_REGIONS } from "../lib/traffic.mjs";

const PATH = "/limit-50";
const LIMIT = 50;
const CHURNED = 3;

/** The services (id → vars): counters unreachable until the check says otherwise. */
export const CHURN_SERVICES = Object.fromEntries(Array.from({ length: CHURNED }, (_, i) => [`churn-${i + 1}`, { PLATFORM_FAULTS: "1:unreachable" }]));

/**
 * Rows of the churn check.
 *
 * @example
 * const rows = await churnChecks({ ports });
 */
export async function churnChecks({ ports, log = () => {} }) {
  const edges = Object.keys(CHURN_SERVICES).map((id) => ports[id]);
  const key = freshKey("churn");
  const outage = await Promise.all(edges.map((port) => send({ ports: [port], path: PATH, key, requests: 100, inFlight: 5 })));
  await resetAll(null, edges);
  await Promise.all(edges.map((port) => platformJson(port, "/__platform/faults?plan=", "POST")));
  const back = await send({ ports: edges, path: PATH, key, requests: 100, inFlight: 5 });
  const during = outage.reduce((sum, c) => sum + c.allowed, 0);
  log(`churn: ${outage.map((c) => c.allowed).join(" + ")} allowed by isolates on their own, evicted unpaid; then ${back.allowed} of 100 by the objects`);
  return [
    {
      check: `churn: ${CHURNED} isolates allow on their own in an outage, are evicted before paying, then 100 more; limit 50, ${arrival(THREE_REGIONS)}`,
      measured: `${during} + ${back.allowed} = ${during + back.allowed} allowed, ${back.errors} 5xx`,
      bound: `≤ 50 × (${CHURNED} + 1) = ${LIMIT * (CHURNED + 1)}, each isolate ≤ 50, no 5xx`,
      pass: outage.every((c) => c.allowed <= LIMIT) && during + back.allowed <= LIMIT * (CHURNED + 1) && back.errors === 0,
    },
  ];
}
