/**
 * (f) Deploy day (docs/reliability.md, "Bounds and the tests that hold
 * them"): a deploy resets every object and every isolate at once,
 * mid-traffic. Three isolates (`deploy-1` … `deploy-3`, the worker's
 * defaults: DECISION_TIMEOUT_MS, checkpointed durability) send a fresh key
 * of limit 50 requests from three regions (and a second key on the direct
 * path, the control), about 3 a second until 30 are allowed; then every
 * counter object is aborted and every isolate of the run reset
 * (lib/traffic.mjs, `resetAll`) while the rest of 300 come, 6 at a time.
 * Bounds:
 * - allowed ≤ 50 + the hits the reset may lose (docs/reliability.md,
 *   "Durability"): those allowed in the last `persist_ms` (1 s) before it,
 *   and for a key relayed through a region's copy in the last 7 s +
 *   `persist_ms`;
 * - a key spent before the deploy (its block known to the isolates, its
 *   count in storage) allows 0 of 100 after it: the new isolates learn the
 *   block again from the objects' storage;
 * - no answer is a 5xx.
 */
import { DIRECT, THREE_REGIONS, arrival, freshKey, resetAll, send } from "../lib/traffic.mjs";
import { decisions } from "./faults.mjs";

const PATH = "/limit-50";
const LIMIT = 50;
/** The reset comes once each key has had this many allowed, at about 3 requests a second (GAP_MS apart). */
const RESET_AT_ALLOWED = 30;
const GAP_MS = 300;
/** What a reset may lose (docs/reliability.md, "Durability"): persist_ms, and for a relayed key RELAY_LEASE_TTL_MS − RELAY_RENEW_MS + RELAY_SYNC_MS more. */
const PERSIST_MS = 1_000;
const RELAYED_LOSS_MS = 7_000 + PERSIST_MS;

/** The services (id → vars): the worker's defaults. */
export const DEPLOY_SERVICES = { "deploy-1": {}, "deploy-2": {}, "deploy-3": {} };
const deployPorts = (ports) => Object.keys(DEPLOY_SERVICES).map((id) => ports[id]);

/**
 * Before the other checks: a key spent through the deploy isolates, so by
 * the deploy its count is long written (and relayed hits reported).
 *
 * @example
 * const spent = await spendBeforeDeploy({ ports });
 */
export async function spendBeforeDeploy({ ports }) {
  const key = freshKey("deploy-spent");
  const counts = await send({ ports: deployPorts(ports), path: PATH, key, requests: LIMIT + 10, inFlight: 5 });
  return { key, counts };
}

/**
 * One key's traffic across the deploy: requests GAP_MS apart (one at a
 * time) until RESET_AT_ALLOWED are allowed and `reset()` has started (once
 * both keys are there), then the rest of 300, 6 at a time. Returns the counts of both phases, the
 * times of the allowed answers and when the reset started and was done.
 */
async function acrossDeploy({ edges, key, cf, reset }) {
  const allowedAt = [];
  const onAnswer = ({ status, at }) => void (status === 200 && allowedAt.push(at));
  const until = () => allowedAt.length >= RESET_AT_ALLOWED;
  const before = await send({ ports: edges, path: PATH, key, requests: 300, inFlight: 1, gapMs: GAP_MS, cf, onAnswer, until });
  // Paced on until the reset starts (the other key may take longer to reach it), then at full speed.
  const { started, done } = reset();
  const waiting = await send({
    ports: edges,
    path: PATH,
    key,
    requests: 300 - before.requests,
    inFlight: 1,
    gapMs: GAP_MS,
    cf,
    onAnswer,
    until: () => started.fired,
  });
  const after = await send({ ports: edges, path: PATH, key, requests: 300 - before.requests - waiting.requests, inFlight: 6, cf, onAnswer });
  return { before: { errors: before.errors + waiting.errors }, after, allowedAt, reset: await done };
}

/**
 * Rows of the deploy check; run last (it resets every counter object of
 * `ports.home` and every isolate of `isolates`, default all of `ports`).
 *
 * @example
 * const rows = await deployChecks({ ports, spent: await spendBeforeDeploy({ ports }) });
 */
export async function deployChecks({ ports, isolates = Object.values(ports), spent, log = () => {} }) {
  const edges = deployPorts(ports);
  // One reset for both keys, once both have had RESET_AT_ALLOWED allowed: every object and every isolate of the run.
  let ready = 0;
  const started = { fired: false };
  let fire;
  const done = new Promise((resolve) => (fire = resolve));
  const reset = () => {
    if (++ready === 2) {
      const startedAt = Date.now();
      started.fired = true;
      fire(resetAll(ports.home, isolates).then(() => ({ startedAt, doneAt: Date.now() })));
    }
    return { started, done };
  };
  const runs = await Promise.all([
    acrossDeploy({ edges, key: freshKey("deploy-burst"), cf: THREE_REGIONS, reset }),
    acrossDeploy({ edges, key: freshKey("deploy-direct"), cf: DIRECT, reset }),
  ]);
  const after = await send({ ports: edges, path: PATH, key: spent.key, requests: 100, inFlight: 5 });
  const rows = [];
  for (const [run, lossMs, cf] of [
    [runs[0], RELAYED_LOSS_MS, THREE_REGIONS],
    [runs[1], PERSIST_MS, DIRECT],
  ]) {
    const { doneAt, startedAt } = run.reset;
    // Answers that came before the reset was done may be an old instance's, and lost: the bound counts them.
    const before = run.allowedAt.filter((t) => t <= doneAt).length;
    const total = run.allowedAt.length;
    const mayLose = run.allowedAt.filter((t) => t <= doneAt && t > startedAt - lossMs).length;
    const errors = run.before.errors + run.after.errors;
    log(
      `deploy, ${arrival(cf)}: ${before} allowed before the reset was done + ${total - before} after (${decisions(run.after)}); ${mayLose} in its loss window`,
    );
    rows.push({
      check: `deploy: every object and isolate reset mid-traffic (default durability), limit 50, ~3 req/s until 30 allowed, then the rest of 300 6 at a time, ${arrival(cf)}`,
      measured: `${before} + ${total - before} = ${total} allowed, ${errors} 5xx`,
      bound: `≤ 50 + ${mayLose} (allowed in the ${lossMs / 1000} s before the reset), no 5xx`,
      pass: errors === 0 && total <= LIMIT + mayLose,
    });
  }
  log(
    `deploy: the key spent before (${spent.counts.allowed} of ${spent.counts.requests} allowed then): ${after.allowed} of 100 allowed after (${decisions(after)})`,
  );
  rows.push({
    check: `deploy: a key spent before the deploy (its block cached, its count stored), 100 requests after, ${arrival(THREE_REGIONS)}`,
    measured: `${after.allowed} allowed, ${after.errors} 5xx (${spent.counts.allowed} of ${spent.counts.requests} before)`,
    bound: "0 allowed, no 5xx",
    pass: spent.counts.allowed === LIMIT && after.allowed === 0 && after.errors === 0,
  });
  return rows;
}
