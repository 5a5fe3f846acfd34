/**
 * (b) Faults never open the gate (docs/reliability.md, "Failure mode"): the
 * edge's object calls fail as the platform fails them (worker/faults.ts),
 * in services of their own, each its own isolate:
 * - `faults-30`: 30 % of calls overloaded or reset (in turn); a fresh key
 *   with a limit of 50 gets 300 requests: 45–50 allowed; the same with
 *   only overloads (`overload-30`) and only resets (`resets-30`);
 * - `overload-50`: half the calls overloaded; a key already over its limit
 *   (spent through `home`), once the isolate has heard so from its object,
 *   gets 200 requests: none allowed;
 * - `down-1`, `down-2`: every call fails (counters unreachable), with the
 *   worker's default FAILURE_MODE (wrangler.toml's): a limit of 50 allows
 *   at most 50 per isolate.
 * Every request carries `request.cf` from three regions (production's
 * shape: a key warm in a region goes through its regional copy), but
 * `faults-30-direct`, the control: `faults-30` on the direct path.
 * Each row also checks that the faults were injected at their share, so
 * none passes because nothing failed.
 */
import { arrival, DIRECT, freshKey, get, platformJson, send, THREE_REGIONS } from "../lib/traffic.mjs";

const PATH = "/limit-50";
const LIMIT = 50;
/** Requests in flight at once into one isolate: enough for its coalescer to batch. */
const IN_FLIGHT = 10;

/** The services (id → vars) these checks need. */
export const FAULT_SERVICES = {
  "faults-30": { PLATFORM_FAULTS: "0.3:overloaded+retryable" },
  "faults-30-direct": { PLATFORM_FAULTS: "0.3:overloaded+retryable" },
  "overload-30": { PLATFORM_FAULTS: "0.3:overloaded" },
  "resets-30": { PLATFORM_FAULTS: "0.3:retryable" },
  "overload-50": { PLATFORM_FAULTS: "0.5:overloaded" },
  "down-1": { PLATFORM_FAULTS: "1:unreachable" },
  "down-2": { PLATFORM_FAULTS: "1:unreachable" },
};

/** The 30 % services, what their failed calls are, and how their requests arrive. */
const THIRTY_PERCENT = {
  "faults-30": ["overloaded or reset (in turn)", THREE_REGIONS],
  "overload-30": ["overloaded", THREE_REGIONS],
  "resets-30": ["reset (retryable)", THREE_REGIONS],
  "faults-30-direct": ["overloaded or reset (in turn)", DIRECT],
};

/** The answers by decision: `status 200` and `status 429` are the objects' (no X-RateLimit-Decision), the rest name the failure mode's. */
export const decisions = (counts) =>
  Object.entries(counts.decisions)
    .map(([d, n]) => `${d} ${n}`)
    .join(", ");

/** The calls of `service` that failed, and whether they are the planned share: ⌈calls × share⌉ (worker/faults.ts), at least one. */
async function injected(port, share) {
  const tally = await platformJson(port, "/__platform/faults");
  const failed = Object.values(tally.failed).reduce((a, b) => a + b, 0);
  return { text: `${failed} of ${tally.calls} calls failed`, ok: failed >= 1 && failed === Math.ceil(tally.calls * share - 1e-9) };
}

/**
 * Rows of the fault checks. `failureMode` is the worker's default (for the row's name).
 *
 * @example
 * const rows = await faultChecks({ ports, failureMode: "local" });
 */
export async function faultChecks({ ports, failureMode, log = () => {} }) {
  const rows = [];

  for (const [service, [what, cf]] of Object.entries(THIRTY_PERCENT)) {
    const fresh = await send({ ports: [ports[service]], path: PATH, key: freshKey(service), requests: 300, inFlight: IN_FLIGHT, cf });
    const tally = await injected(ports[service], 0.3);
    log(`${service}: ${fresh.allowed} of 300 allowed (${decisions(fresh)}); ${tally.text}`);
    rows.push({
      check: `faults: 30 % of object calls ${what}; a fresh key, limit 50, 300 requests, ${arrival(cf)}`,
      measured: `${fresh.allowed} allowed (${tally.text})`,
      bound: "45–50 allowed",
      pass: tally.ok && fresh.allowed >= 45 && fresh.allowed <= LIMIT,
    });
  }

  // The bound is for a key the isolate knows to be over its limit (docs/reliability.md, "Failure mode"): it learns so
  // from an object's 429, one request at a time while half its calls are overloaded; then 200 more, 10 at a time.
  const overKey = freshKey("over-limit");
  const spent = await send({ ports: [ports.home], path: PATH, key: overKey, requests: LIMIT + 10, inFlight: 1 });
  const learning = { requests: 0, allowed: 0, learned: false };
  while (!learning.learned && learning.requests < 10) {
    const { status, headers } = await get(ports["overload-50"], PATH, overKey, { cf: THREE_REGIONS[learning.requests % THREE_REGIONS.length] });
    learning.requests += 1;
    if (status === 200) learning.allowed += 1;
    learning.learned = status === 429 && headers["x-ratelimit-decision"] === undefined;
  }
  const over = await send({ ports: [ports["overload-50"]], path: PATH, key: overKey, requests: 200, inFlight: IN_FLIGHT });
  const over50 = await injected(ports["overload-50"], 0.5);
  log(
    `overload-50: key spent through home (${spent.allowed} of ${spent.requests} allowed); the isolate heard its object refuse it after ${learning.requests} request(s) ` +
      `(${learning.allowed} allowed meanwhile), then ${over.allowed} of 200 allowed (${decisions(over)}); ${over50.text}`,
  );
  rows.push({
    check: `faults: 50 % of object calls overloaded; a key over its limit of 50 (and known so to the isolate), 200 requests, ${arrival(THREE_REGIONS)}`,
    measured: `${over.allowed} allowed (${over50.text})`,
    bound: "0 allowed",
    pass: spent.allowed === LIMIT && learning.learned && over50.ok && over.allowed === 0,
  });

  const downKey = freshKey("down");
  const down = [];
  for (const service of ["down-1", "down-2"]) {
    const counts = await send({ ports: [ports[service]], path: PATH, key: downKey, requests: 300, inFlight: IN_FLIGHT });
    const tally = await injected(ports[service], 1);
    log(`${service}: ${counts.allowed} of 300 allowed (${decisions(counts)}); ${tally.text}`);
    down.push({ counts, tally });
  }
  rows.push({
    check: `faults: counters unreachable (every call fails), default FAILURE_MODE (${failureMode}); limit 50, 300 requests into each of 2 isolates, ${arrival(THREE_REGIONS)}`,
    measured: `${down.map((d) => d.counts.allowed).join(" and ")} allowed`,
    bound: "≤ 50 per isolate",
    pass: down.every((d) => d.tally.ok && d.counts.allowed <= LIMIT),
  });
  return rows;
}
