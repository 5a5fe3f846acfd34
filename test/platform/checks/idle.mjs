/**
 * (e) Idle objects sleep (docs/operations.md, "What a deployment costs, on
 * Free and on Paid"): a Durable Object is billed for duration while it is
 * awake, so no object may keep itself awake once its traffic stops. A global
 * limit is hit from Frankfurt (request.cf: region weur), so the key goes
 * through its regional object (`…@weur`, the relay) to its home counter
 * object; then nothing for IDLE_MS. Both objects must have been evicted by
 * the runtime (workerd, as Cloudflare, evicts an object that has had no
 * request nor alarm for about 10 s): a new instance answers the next
 * call. A kept timer, or an alarm that keeps firing, would keep the old
 * instance alive. The regional object, which writes nothing, must also have
 * no alarm left; the home's only alarm may be its sweep, once the key's
 * hour can be idle.
 */
import { FRANKFURT, freshKey, platformJson, send } from "../lib/traffic.mjs";

const PATH = "/idle/hour";
/**
 * The relay's leases are given back RELAY_IDLE_MS (5 s) after the last hit, in
 * a sync at most RELAY_SYNC_MS (1 s) later; then ~10 s more to the runtime's
 * eviction, and slack for a loaded machine.
 */
const IDLE_MS = 22_000;
/** The hour window's sweep comes when the key's counter can be idle: not sooner than this after the last request. */
const SWEEP_NOT_BEFORE_MS = 30 * 60_000;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The key's regional and home objects' state (each call wakes the object it asks). */
async function statesOf(port, key) {
  const objects = await platformJson(port, `/__platform/objects?match=${encodeURIComponent(key)}`);
  const names = Object.keys(objects);
  const regional = names.find((n) => n.includes("@"));
  const home = names.find((n) => !n.includes("@"));
  return { regional: regional && objects[regional], home: home && objects[home] };
}

/**
 * Rows of the idle check.
 *
 * @example
 * const rows = await idleChecks({ port: ports.home, log });
 */
export async function idleChecks({ port, log = () => {} }) {
  const key = freshKey("idle");
  const counts = await send({ ports: [port], path: PATH, key, requests: 40, inFlight: 4, cf: FRANKFURT });
  const lastRequestAt = Date.now();
  const before = await statesOf(port, key);
  log(`idle: 40 requests from FRA (${counts.allowed} allowed); waiting ${IDLE_MS / 1000} s with no traffic`);
  await sleep(IDLE_MS);
  const after = await statesOf(port, key);
  const evicted = (b, a) => b !== undefined && a !== undefined && a.instance !== b.instance;
  const alarmText = (at) => (at === null ? "none" : `in ${((at - Date.now()) / 1000).toFixed(0)} s`);
  log(
    `idle: regional ${before.regional?.instance.slice(0, 8)} → ${after.regional?.instance.slice(0, 8)} (alarm ${alarmText(after.regional?.alarmAt ?? null)}), ` +
      `home ${before.home?.instance.slice(0, 8)} → ${after.home?.instance.slice(0, 8)} (alarm ${alarmText(after.home?.alarmAt ?? null)})`,
  );
  const homeAlarm = after.home?.alarmAt ?? null;
  return [
    {
      check: `idle: regional object of a relayed global key, ${IDLE_MS / 1000} s without traffic: evicted, no alarm left`,
      measured:
        before.regional === undefined
          ? "no regional object was used"
          : `${evicted(before.regional, after.regional) ? "evicted" : "still awake"}, alarm ${alarmText(after.regional?.alarmAt ?? null)}`,
      bound: "evicted, alarm none",
      pass: evicted(before.regional, after.regional) && after.regional.alarmAt === null,
    },
    {
      check: `idle: its home counter object, ${IDLE_MS / 1000} s without traffic: evicted, no alarm before the sweep`,
      measured: `${evicted(before.home, after.home) ? "evicted" : "still awake"}, alarm ${alarmText(homeAlarm)}`,
      bound: `evicted, alarm none or ≥ ${SWEEP_NOT_BEFORE_MS / 60_000} min on`,
      pass: evicted(before.home, after.home) && (homeAlarm === null || homeAlarm >= lastRequestAt + SWEEP_NOT_BEFORE_MS),
    },
  ];
}
