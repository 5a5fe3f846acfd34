/**
 * (k) A key's home reset alone (docs/reliability.md, "Durability"): not a
 * deploy, one object (a crash, a runtime update of its machine) while the
 * key is decided in three regions from the home's leases. The deploy
 * isolates (`deploy-1` … `deploy-3`, the worker's defaults) send a fresh
 * key of limit 50 (`platform-home`, `per_key`: the key's home and its three
 * regional copies are objects of its own) from three regions, about 3 a
 * second until 30 are allowed; then only its home is aborted (the copies
 * and the isolates keep what they hold), and the rest of 300 come, 6 at a
 * time. The home forgets the leases it had lent; the copies spend what they
 * hold until their leases end and report it to the new instance. Bound:
 * allowed ≤ 50 + the quota lent out when the home went (read by the abort
 * itself, so no grant slips between) + the hits allowed in the `persist_ms`
 * (1 s) before it (the home's checkpoint); no 5xx; exactly one object (the
 * home) reset, with regional copies beside it.
 */
import { arrival, freshKey, platformJson, send, THREE_REGIONS } from "../lib/traffic.mjs";
import { decisions } from "./faults.mjs";
import { DEPLOY_SERVICES } from "./deploy.mjs";

const PATH = "/home/limit-50";
const LIMIT = 50;
const RESET_AT_ALLOWED = 30;
const GAP_MS = 300;
const PERSIST_MS = 1_000;

/**
 * Rows of the home-reset check (on the deploy isolates, before the deploy check resets them).
 *
 * @example
 * const rows = await homeResetChecks({ ports });
 */
export async function homeResetChecks({ ports, log = () => {} }) {
  const edges = Object.keys(DEPLOY_SERVICES).map((id) => ports[id]);
  const key = freshKey("home-reset");
  const allowedAt = [];
  const onAnswer = ({ status, at }) => void (status === 200 && allowedAt.push(at));
  const before = await send({
    ports: edges,
    path: PATH,
    key,
    requests: 300,
    inFlight: 1,
    gapMs: GAP_MS,
    onAnswer,
    until: () => allowedAt.length >= RESET_AT_ALLOWED,
  });
  const objects = await platformJson(ports.home, `/__platform/objects?match=${encodeURIComponent(key)}`);
  const startedAt = Date.now();
  // The traffic goes on while the home is reset: the reset's answer is awaited beside it.
  const reset = platformJson(ports.home, `/__platform/evict?match=${encodeURIComponent(key)}&homes=1`, "POST").then((evicted) => ({
    evicted,
    doneAt: Date.now(),
  }));
  const after = await send({ ports: edges, path: PATH, key, requests: 300 - before.requests, inFlight: 6, onAnswer });
  const { evicted, doneAt } = await reset;
  const homes = Object.entries(evicted);
  const copies = Object.keys(objects).filter((name) => name.includes("@")).length;
  const leasesOut = homes.reduce((sum, [, { leasesOut }]) => sum + leasesOut, 0);
  const total = allowedAt.length;
  const beforeReset = allowedAt.filter((t) => t <= doneAt).length;
  const mayLose = allowedAt.filter((t) => t <= doneAt && t > startedAt - PERSIST_MS).length;
  const errors = before.errors + after.errors;
  log(
    `home reset: ${beforeReset} allowed before it was done + ${total - beforeReset} after (${decisions(after)}); ${homes.length} home reset with ${leasesOut} lent out, ${copies} regional copies; ${mayLose} in the last ${PERSIST_MS / 1000} s`,
  );
  return [
    {
      check: `home reset: only a relayed key's home reset mid-traffic (its copies and isolates keep theirs), limit 50, ~3 req/s until 30 allowed, then the rest of 300 6 at a time, ${arrival(THREE_REGIONS)}`,
      measured: `${beforeReset} + ${total - beforeReset} = ${total} allowed, ${errors} 5xx; ${homes.length} home reset (${copies} copies beside it), ${leasesOut} lent out then`,
      bound: `≤ 50 + ${leasesOut} (lent out) + ${mayLose} (allowed in the ${PERSIST_MS / 1000} s before), no 5xx, 1 home and ≥ 1 copy`,
      pass: errors === 0 && homes.length === 1 && copies >= 1 && total <= LIMIT + leasesOut + mayLose,
    },
  ];
}
