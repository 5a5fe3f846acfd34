/**
 * Bursts get their quota (docs/reliability.md, "Bursts"): a burst of up to
 * 3 × the limit arriving at once through the real gateway and real counter
 * objects is allowed the limit less at most 2 %, never more, for every
 * algorithm, with a simulated `request.cf` (decided through the region's
 * copy of the home, docs/placement.md, "Global limits decided in the
 * region") and without one (at the home). Weighted requests (cost 3) are
 * charged their whole cost at the home, whichever way they were decided.
 * Objects and isolate stand on one clock, so no window turns or bucket
 * refills during a burst.
 *
 * Breaks tried, each seen to fail here: the regional copy refusing a hit
 * the home refused while its own lease could cover it (the lease taken
 * before the burst was decided, spent on nothing: 75 to 96 of 100 allowed
 * through the relay, before the fix); `spend` in src/durable/counters/leases/lease-holder.ts
 * adding 1 to `pending` whatever the cost (the weighted case: the home held
 * fewer hits than the allowed requests cost).
 */
import { describe, expect, it } from "vitest";
import { gateway, testEnv } from "../support/app.ts";
import { WARM_HITS } from "../../src/durable/counters/warm-keys.ts";
import { drivenCounters, OBJECT_EPOCH } from "../support/driven-object.ts";

const LIMIT = 100;
const ALGORITHMS = ["fixed_window", "sliding_window_log", "sliding_window_counter", "token_bucket", "leaky_bucket", "gcra"] as const;
const rules = {
  domain: "gw-burst",
  descriptors: ALGORITHMS.map((algorithm) => ({
    key: "alg",
    value: algorithm,
    descriptors: [{ key: "user", rate_limit: { unit: "minute", requests_per_unit: LIMIT, algorithm } }],
  })),
  routes: [
    {
      match: { path: "/weighted" },
      cost: { header: "x-cost" },
      descriptors: [
        [
          { key: "alg", header: "x-alg" },
          { key: "user", header: "x-user" },
        ],
      ],
    },
    {
      match: {},
      descriptors: [
        [
          { key: "alg", header: "x-alg" },
          { key: "user", header: "x-user" },
        ],
      ],
    },
  ],
};

type Cf = RequestInit["cf"];
const FRANKFURT = { colo: "FRA", continent: "EU", country: "DE" } as unknown as Cf; // weur

let n = 0;

/** The gateway on a clock standing still, with every object it addresses recorded. */
function setup() {
  const now = () => OBJECT_EPOCH;
  const addressed: string[] = [];
  // Each regional copy's home too: on the machine's clock, a bucket would refill during the test.
  const counters = drivenCounters(testEnv.COUNTERS, now, { withHomes: true, seen: (name) => addressed.push(name) });
  const call = gateway(rules, { COUNTERS: counters }, { now });
  return { addressed, call };
}

/**
 * `size` requests for one fresh key at once; how many were allowed, and the objects they addressed. With a location,
 * the key is first made warm in the region (WARM_HITS requests of cost 1, one after another, counted in `warm`), so
 * that the burst goes through the region's copy (docs/placement.md, "Relay only what pays").
 */
async function burst(algorithm: string, size: number, cf: Cf | undefined, cost = 1) {
  const { addressed, call } = setup();
  const user = `b${++n}-${Math.random()}`;
  /** `count` requests of `weight` at once: how many were allowed. */
  const send = async (count: number, weight: number) => {
    const headers = { "x-alg": algorithm, "x-user": user, "x-cost": String(weight) };
    const init = { headers, ...(cf ? { cf } : {}) };
    const responses = await Promise.all(Array.from({ length: count }, () => call(weight === 1 ? "/" : "/weighted", init)));
    await Promise.all(responses.map((r) => r.arrayBuffer()));
    const statuses = responses.map((r) => r.status);
    expect(statuses.every((s) => s === 200 || s === 429)).toBe(true);
    return statuses.filter((s) => s === 200).length;
  };
  let warm = 0;
  if (cf !== undefined) for (let i = 0; i < WARM_HITS; i++) warm += await send(1, 1);
  const relayedFrom = addressed.length;
  const allowed = await send(size - (cost === 1 ? warm : 0), cost);
  const names = [...new Set(addressed.slice(relayedFrom))];
  return { allowed: cost === 1 ? allowed + warm : allowed, warm, names, send };
}

describe.each([
  ["with request.cf (through the region's copy)", FRANKFURT],
  ["without request.cf (at the home)", undefined],
] as const)("a burst at once %s", (_, cf) => {
  for (const algorithm of ALGORITHMS) {
    it(`${algorithm}: bursts of 120 and 300 at a limit of 100 are allowed 98 to 100`, async () => {
      for (const size of [120, 300]) {
        const { allowed, names } = await burst(algorithm, size, cf);
        expect({ size, allowed }).toEqual({ size, allowed: within(allowed, LIMIT) });
        expect(names.every((x) => x.includes("@"))).toBe(cf !== undefined);
      }
    });

    // Weighted: 100 requests of cost 3 (3 × the limit in hits) get 33 (99 hits; 32 after the 3 that warmed the key); then
    // the key's last hits go to requests of cost 1 and no more, so every allowed request was charged its whole cost wherever
    // it was decided.
    it(`${algorithm}: a burst of cost-3 requests is allowed all that fits and charged 3 each`, async () => {
      const { allowed, warm, send } = await burst(algorithm, 100, cf, 3);
      expect(allowed).toBe(Math.floor((LIMIT - warm) / 3));
      expect(await send(10, 1)).toBe(LIMIT - warm - 3 * allowed);
    });
  }
});

/** `allowed` if it is the limit less at most 2 %, never more; otherwise a text that fails the comparison. */
function within(allowed: number, limit: number): number | string {
  return allowed <= limit && allowed >= limit * 0.98 ? allowed : `${limit * 0.98}-${limit}`;
}

const THREE_REGIONS = [
  { colo: "IAD", continent: "NA", country: "US" },
  { colo: "FRA", continent: "EU", country: "DE" },
  { colo: "SIN", continent: "AS", country: "SG" },
] as unknown as Cf[];

// A key warm in three regions, bursting 37 a region at once after 3 hits from each (docs/placement.md, "A burst from
// several regions at once on a key warm in each"): the hits a region's copy asks the home for are taken from its own lease
// first, so no region's lease is left unspent while the last region's hits are refused. Break tried: the home taking
// nothing from the asker's lease (`own` 0 in decideBesideLeases, src/durable/counters/leases/precount-sync.ts): 88 of 100
// for every algorithm, as before the fix.
describe("a burst at once from three regions, the key warm in each (through the three copies)", () => {
  for (const algorithm of ALGORITHMS) {
    it(`${algorithm}: bursts of 120 and 300 at a limit of 100 are allowed 98 to 100`, async () => {
      for (const size of [120, 300]) {
        const { addressed, call } = setup();
        const user = `b3-${++n}-${Math.random()}`;
        const headers = { "x-alg": algorithm, "x-user": user, "x-cost": "1" };
        const status = async (cf: Cf) => (await call("/", { headers, cf })).status;
        let warm = 0;
        for (const cf of THREE_REGIONS) for (let i = 0; i < WARM_HITS; i++) warm += (await status(cf)) === 200 ? 1 : 0;
        const relayedFrom = addressed.length;
        const statuses = await Promise.all(Array.from({ length: size - warm }, (_, i) => status(THREE_REGIONS[i % 3])));
        expect(statuses.every((s) => s === 200 || s === 429)).toBe(true);
        const allowed = warm + statuses.filter((s) => s === 200).length;
        expect({ size, allowed }).toEqual({ size, allowed: within(allowed, LIMIT) });
        expect(new Set(addressed.slice(relayedFrom).filter((x) => x.includes("@"))).size).toBe(3);
      }
    });
  }
});
