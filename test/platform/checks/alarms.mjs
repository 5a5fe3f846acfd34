/**
 * (h) Alarms that fail, repeat and run late (docs/reliability.md, "Bounds
 * and the tests that hold them"): Cloudflare runs an alarm at least once,
 * retries a failed one with backoff (from 2 s), may run it again after a
 * reset, and may run it late. Relay syncs (the regional copies'), quiet
 * writes, checkpoints and sweeps (the homes') all run on the objects' one
 * alarm. For each fault of worker/platform-object.ts (`alarm-throw`,
 * `alarm-twice`, `alarm-late`, `alarm-reset`), a key of its own (`per_key`,
 * so the fault reaches only its objects: its home and its regional copies)
 * with a limit of 50 gets 300 requests from three regions through the
 * `alarms` isolate; then nothing for SETTLE_MS, long enough for every
 * alarm, retried or late, to have written the key and reported the
 * regions' hits; then every object of the keys is aborted and the isolate
 * reset (nothing in memory is left), and each key gets 100 more. Bound:
 * both rounds together allow at most 50 (no hit lost by an alarm, none given
 * back twice), no 5xx, and the fault was injected. (How many of the first
 * 300 a key gets is the relay's false denies, held by the bursts rows.)
 */
import { arrival, freshKey, platformJson, resetAll, send, sleep, THREE_REGIONS } from "../lib/traffic.mjs";
import { decisions } from "./faults.mjs";

const PATH = "/alarms/limit-50";
const LIMIT = 50;
const FAULTS = ["alarm-throw", "alarm-twice", "alarm-late", "alarm-reset"];
/** Quiet write 5 s after the last call, a relay sync ≤ 6 s after its last hit, then the home's write; a retry 2 s on, a late alarm 3 s. */
const SETTLE_MS = 16_000;

/**
 * The service (id → vars): it waits up to 30 s for the objects (as `bursts`
 * does), so that on a loaded machine no call times out into the failure
 * mode, whose local decisions would say nothing of alarms.
 */
export const ALARM_SERVICES = { alarms: { DECISION_TIMEOUT_MS: "30000" } };

/**
 * Rows of the alarm checks.
 *
 * @example
 * const rows = await alarmChecks({ ports });
 */
export async function alarmChecks({ ports, log = () => {} }) {
  const keys = FAULTS.map((fault) => freshKey(fault));
  const first = await Promise.all(keys.map((key) => send({ ports: [ports.alarms], path: PATH, key, requests: 300, inFlight: 10 })));
  log(`alarms: ${first.map((c, i) => `${FAULTS[i]} ${c.allowed} (${decisions(c)})`).join(", ")} of 300 allowed; waiting ${SETTLE_MS / 1000} s`);
  await sleep(SETTLE_MS);
  await resetAll(ports.home, [ports.alarms], "platform-alarms/");
  const second = await Promise.all(keys.map((key) => send({ ports: [ports.alarms], path: PATH, key, requests: 100, inFlight: 10 })));
  const tally = await platformJson(ports.home, "/__platform/alarms");
  return FAULTS.map((fault, i) => {
    const { runs, faults } = tally[fault];
    log(`alarms, ${fault}: ${first[i].allowed} then ${second[i].allowed} allowed (${decisions(second[i])}); ${faults} faults in ${runs} alarm runs`);
    const total = first[i].allowed + second[i].allowed;
    return {
      check: `alarms: ${fault.replace("alarm-", "")} (${describe[fault]}), limit 50, 300 requests, then objects and isolate reset, 100 more, ${arrival(THREE_REGIONS)}`,
      measured: `${first[i].allowed} + ${second[i].allowed} = ${total} allowed, ${first[i].errors + second[i].errors} 5xx (${faults} faults in ${runs} alarm runs)`,
      bound: "≤ 50 in all, no 5xx",
      pass: faults >= 1 && total <= LIMIT && first[i].errors + second[i].errors === 0,
    };
  });
}

const describe = {
  "alarm-throw": "each alarm's first try throws, retried",
  "alarm-twice": "each alarm runs twice",
  "alarm-late": "each alarm runs 3 s late",
  "alarm-reset": "the home reset after a quiet alarm's first try, which runs again on a new instance",
};
