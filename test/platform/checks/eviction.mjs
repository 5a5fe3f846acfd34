/**
 * (a) Nothing lost to eviction (docs/reliability.md, "Durability"): a
 * 30-second sliding log of 2, requests 12 s apart, its object evicted in
 * each gap, must refuse the third request. An eviction is either the
 * runtime's own (workerd, as Cloudflare, evicts an object after 10 s with
 * no request) or forced (`abort`: once the object's quiet write is due, the
 * object is aborted, which discards its memory as an eviction does; only
 * the key's own object, so the check can run beside the others). Either
 * way the check sees that a new instance answered after each gap, or fails:
 * a gap with no eviction proves nothing.
 */
import { get, freshKey, platformJson } from "../lib/traffic.mjs";

const PATH = "/evict/log-30s";
/** The gap: longer than the runtime's idle eviction (10 s), shorter than the window. */
const IDLE_GAP_MS = 12_000;
/** For `abort`: past the object's quiet write (QUIET_WRITE_MS, 5 s), before which the runtime never evicts an idle object. */
const ABORT_AFTER_MS = 6_000;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The instance of the key's object, asked right after its request (so it is the one that answered). */
async function instanceOf(port, key) {
  const objects = await platformJson(port, `/__platform/objects?match=${encodeURIComponent(key)}`);
  const name = Object.keys(objects).find((n) => n.startsWith("platform-evict/key/") && n.includes(key));
  return name === undefined ? undefined : objects[name].instance;
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
  for (let i = 0; i < 3; i++) {
    if (i > 0) {
      if (mode === "abort") {
        await sleep(ABORT_AFTER_MS);
        await platformJson(port, `/__platform/evict?match=${encodeURIComponent(key)}`, "POST");
        await sleep(IDLE_GAP_MS - ABORT_AFTER_MS);
      } else await sleep(IDLE_GAP_MS);
    }
    statuses.push((await get(port, PATH, key)).status);
    instances.push(await instanceOf(port, key));
    log(`eviction (${mode}): request ${i + 1} at ${i * 12} s: ${statuses[i]}, instance ${instances[i]?.slice(0, 8)}`);
  }
  const evictions = instances.slice(1).filter((instance, i) => instance !== undefined && instance !== instances[i]).length;
  const how = mode === "idle" ? "the runtime's idle eviction" : "an abort after the quiet write";
  return [
    {
      check: `eviction (${how}): objects evicted in the 2 gaps`,
      measured: `${evictions} of 2`,
      bound: "2 of 2",
      pass: evictions === 2,
    },
    {
      check: `eviction (${how}): 30 s sliding log of 2, requests at 0, 12, 24 s`,
      measured: statuses.join(", "),
      bound: "200, 200, 429",
      pass: statuses.join() === "200,200,429",
    },
  ];
}
