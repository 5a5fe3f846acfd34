/**
 * (e) Idle objects sleep (docs/operations.md, "What a deployment costs, on
 * Free and on Paid"): a Durable Object is billed for duration while it is
 * awake, so no object may keep itself awake once its traffic stops. A global
 * limit is hit from three regions (request.cf from IAD, FRA, SIN), so the
 * key, warm in each, goes through its regional objects (`…@enam`, `…@weur`,
 * `…@apac`: the relay) to its home counter object; then nothing for
 * IDLE_MS. Every one of them must have been evicted by
 * the runtime (workerd, as Cloudflare, evicts an object that has had no
 * request nor alarm for about 10 s): a new instance answers the next
 * call. A kept timer, or an alarm that keeps firing, would keep the old
 * instance alive. The regional objects, which write nothing, must also have
 * no alarm left; the home's only alarm may be its sweep, once the key's
 * hour can be idle.
 */
import { freshKey, platformJson, send } from "../lib/traffic.mjs";

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

/** The key's regional and home objects' state, the regional ones by name (each call wakes the object it asks). */
async function statesOf(port, key) {
  const objects = await platformJson(port, `/__platform/objects?match=${encodeURIComponent(key)}`);
  const names = Object.keys(objects).sort();
  const regional = Object.fromEntries(names.filter((n) => n.includes("@")).map((n) => [n, objects[n]]));
  const home = names.find((n) => !n.includes("@"));
  return { regional, home: home && objects[home] };
}

/**
 * Rows of the idle check.
 *
 * @example
 * // The traffic through a service that waits for the objects (a call timed out into the failure mode relays nothing).
 * const rows = await idleChecks({ port: ports.home, trafficPort: ports.bursts, log });
 */
export async function idleChecks({ port, trafficPort = port, log = () => {} }) {
  const key = freshKey("idle");
  const counts = await send({ ports: [trafficPort], path: PATH, key, requests: 60, inFlight: 4 });
  const lastRequestAt = Date.now();
  const before = await statesOf(port, key);
  log(`idle: 60 requests from IAD/FRA/SIN (${counts.allowed} allowed); waiting ${IDLE_MS / 1000} s with no traffic`);
  await sleep(IDLE_MS);
  const after = await statesOf(port, key);
  const evicted = (b, a) => b !== undefined && a !== undefined && a.instance !== b.instance;
  const alarmText = (at) => (at === null ? "none" : `in ${((at - Date.now()) / 1000).toFixed(0)} s`);
  const regions = Object.keys(before.regional);
  const asleep = regions.filter((n) => evicted(before.regional[n], after.regional[n]) && after.regional[n].alarmAt === null);
  log(
    `idle: regional ${regions.map((n) => `${n.slice(n.indexOf("@"))} ${before.regional[n].instance.slice(0, 8)} → ${after.regional[n]?.instance.slice(0, 8)} (alarm ${alarmText(after.regional[n]?.alarmAt ?? null)})`).join(", ")}, ` +
      `home ${before.home?.instance.slice(0, 8)} → ${after.home?.instance.slice(0, 8)} (alarm ${alarmText(after.home?.alarmAt ?? null)})`,
  );
  const homeAlarm = after.home?.alarmAt ?? null;
  return [
    {
      check: `idle: the regional objects of a global key relayed from IAD/FRA/SIN, ${IDLE_MS / 1000} s without traffic: evicted, no alarm left`,
      measured: regions.length === 0 ? "no regional object was used" : `${asleep.length} of ${regions.length} evicted with no alarm`,
      bound: "all (3) evicted, alarm none",
      pass: regions.length === 3 && asleep.length === regions.length,
    },
    {
      check: `idle: its home counter object, ${IDLE_MS / 1000} s without traffic: evicted, no alarm before the sweep`,
      measured: `${evicted(before.home, after.home) ? "evicted" : "still awake"}, alarm ${alarmText(homeAlarm)}`,
      bound: `evicted, alarm none or ≥ ${SWEEP_NOT_BEFORE_MS / 60_000} min on`,
      pass: evicted(before.home, after.home) && (homeAlarm === null || homeAlarm >= lastRequestAt + SWEEP_NOT_BEFORE_MS),
    },
  ];
}
