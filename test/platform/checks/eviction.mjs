/**
 * (a) Nothing lost to eviction (docs/reliability.md, "Durability"): a
 * 30-second sliding log of 2, requests 12 s apart, its object evicted in
 * each gap, must refuse the third request. An eviction is either the
 * runtime's own (workerd, as Cloudflare, evicts an object after 10 s with
 * no request) or forced (`abort`: the object is aborted, which discards
 * its memory as an eviction does, once an alarm due before the runtime
 * could evict it has run, its quiet write included; only the key's own
 * object, so the check can run beside the others). Either
 * way the check sees that a new instance answered after each gap, or fails:
 * a gap with no eviction proves nothing.
 */
import { freshKey, get, platformJson, THREE_REGIONS } from "../lib/traffic.mjs";

const PATH = "/evict/log-30s";
/** The gap: longer than the runtime's idle eviction (10 s), shorter than the window. */
const IDLE_GAP_MS = 12_000;
/** For `abort`: past the object's quiet write (QUIET_WRITE_MS, 5 s), when its alarm should have run. */
const ABORT_AFTER_MS = 6_000;
/** The platform evicts no object that has had a request within this long: an alarm due before then runs first. */
const EVICTION_IDLE_MS = 10_000;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** The state of the key's object (instance, alarm), asked right after its request (so its instance is the one that answered). */
async function stateOf(port, key) {
  const objects = await platformJson(port, `/__platform/objects?match=${encodeURIComponent(key)}`);
  const name = Object.keys(objects).find((n) => n.startsWith("platform-evict/key/") && n.includes(key) && !n.includes("@"));
  return name === undefined ? undefined : objects[name];
}

/**
 * Abort the key's object as the runtime would evict it: not before an
 * alarm due within EVICTION_IDLE_MS of `lastRequestAt` has run (a loaded
 * machine runs alarms late), and at the latest when that time is up.
 */
async function evictWhenIdle(port, key, lastRequestAt) {
  await sleep(ABORT_AFTER_MS);
  for (;;) {
    const alarmAt = (await stateOf(port, key))?.alarmAt ?? null;
    if (alarmAt === null || alarmAt >= lastRequestAt + EVICTION_IDLE_MS || Date.now() >= lastRequestAt + EVICTION_IDLE_MS) break;
    await sleep(250);
  }
  await platformJson(port, `/__platform/evict?match=${encodeURIComponent(key)}`, "POST");
}

/**
 * Rows of the eviction check, by `mode` ("idle": the runtime's own eviction; "abort": forced).
 *
 * @example
 * const rows = await evictionCheck({ port: ports.home, mode: "idle" });
 */
export async function evictionCheck({ port, mode = "idle", log = () => {} }) {
  const key = freshKey(`evict-${mode}`);
  const statuses = [];
  const instances = [];
  let lastRequestAt = 0;
  for (let i = 0; i < 3; i++) {
    if (i > 0) {
      if (mode === "abort") await evictWhenIdle(port, key, lastRequestAt);
      await sleep(lastRequestAt + IDLE_GAP_MS - Date.now());
    }
    lastRequestAt = Date.now();
    statuses.push((await get(port, PATH, key, { cf: THREE_REGIONS[i] })).status);
    instances.push((await stateOf(port, key))?.instance);
    log(`eviction (${mode}): request ${i + 1} at ${i * 12} s: ${statuses[i]}, instance ${instances[i]?.slice(0, 8)}`);
  }
  const evictions = instances.slice(1).filter((instance, i) => instance !== undefined && instance !== instances[i]).length;
  const how = mode === "idle" ? "the runtime's idle eviction" : "an abort once the object's alarm has run";
  return [
    {
      check: `eviction (${how}): objects evicted in the 2 gaps`,
      measured: `${evictions} of 2`,
      bound: "2 of 2",
      pass: evictions === 2,
    },
    {
      check: `eviction (${how}): 30 s sliding log of 2, requests at 0, 12, 24 s, request.cf IAD, FRA, SIN`,
      measured: statuses.join(", "),
      bound: "200, 200, 429",
      pass: statuses.join() === "200,200,429",
    },
  ];
}
