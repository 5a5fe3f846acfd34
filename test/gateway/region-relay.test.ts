/**
 * Global limits decided in the request's region, through the real gateway
 * (docs/placement.md, "Global limits decided in the region"): a request
 * with a location goes to the key's home, saying its region, until the home
 * answers that the key is warm there (WARM_HITS hits in a row: "Relay only
 * what pays"); then it asks its region's copy of the home object, which
 * asks the home only for a key's first hit in the region; a request with no
 * location, a strict limit and a pre-counted one go to the home as before.
 *
 * Breaks tried, each seen to fail here: `relayRegion` in src/limiter/plan.ts
 * returning undefined (every request went to the home: the addressed names
 * and the regional object's stats); strict limits not excluded there (the
 * strict case addressed the regional copy).
 */
import { describe, expect, it } from "vitest";
import { runInDurableObject } from "cloudflare:test";
import type { CounterObject } from "../../src/durable/counters/counter-object.ts";
import { homeOf } from "../../src/durable/counters/regions.ts";
import { WARM_HITS } from "../../src/durable/counters/warm-keys.ts";
import { hangingCounters, throwingCounters } from "../support/failing.ts";
import { gateway } from "../support/app.ts";
import { recordingCounters } from "../support/recording-counters.ts";

const LIMIT = 5;
const leaf = (extra: Record<string, unknown> = {}) => [{ key: "user", rate_limit: { unit: "hour", requests_per_unit: LIMIT, ...extra } }];
const TIERS = {
  global: leaf(),
  strict: leaf({ durability: "strict" }),
  precounted: leaf({ precount: { sync_ms: 50 } }),
  wide: [{ key: "user", rate_limit: { unit: "hour", requests_per_unit: 20 } }],
};
const rules = {
  domain: "gw-relay",
  descriptors: Object.entries(TIERS).map(([tier, descriptors]) => ({ key: "tier", value: tier, descriptors })),
  routes: Object.keys(TIERS).map((tier) => ({
    match: { path: `/${tier}` },
    descriptors: [
      [
        { key: "tier", value: tier },
        { key: "user", header: "x-user" },
      ],
    ],
  })),
};

type Cf = RequestInit["cf"];
const FRANKFURT = { colo: "FRA", continent: "EU", country: "DE" } as unknown as Cf; // weur
const SINGAPORE = { colo: "SIN", continent: "AS", country: "SG" } as unknown as Cf; // apac

function setup(vars: Record<string, string> = {}) {
  const { addressed, counters, real } = recordingCounters();
  const call = gateway(rules, { COUNTERS: counters, ...vars });
  const send = (tier: string, user: string, cf?: Cf) => call(`/${tier}`, { headers: { "x-user": user }, ...(cf ? { cf } : {}) });
  return { addressed, send, stats: (name: string) => real.getByName(name).stats() };
}

let n = 0;
const uniqueUser = () => `r${++n}-${Date.now()}`;

describe("a global limit decided in the request's region", () => {
  it("sends a key home until it is warm in the region, then asks the home for its first relayed hit only; exact across regions", async () => {
    const { addressed, send, stats } = setup();
    const user = uniqueUser();
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT + 2; i++) statuses.push((await send("global", user, FRANKFURT)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    // The first WARM_HITS went to the home (no hint), whose answer to the last said the key is warm in weur.
    const home = addressed[0].name;
    expect(home).not.toContain("@");
    expect(addressed.slice(0, WARM_HITS).every((a) => a.name === home && a.hint === undefined)).toBe(true);
    const regional = addressed[WARM_HITS].name;
    expect(homeOf(regional)).toBe(home);
    expect(addressed.slice(WARM_HITS).every((a) => a.name === regional && a.hint === "weur")).toBe(true);
    // The copy's first hit asked the home (with a lease: what is free, 1), the next was decided in the region from it,
    // and the ones it could not cover asked the home again (a refusal the home gave for good is the block cache's after).
    const { relay } = await stats(regional);
    expect(relay.local + relay.asked).toBeGreaterThanOrEqual(LIMIT - WARM_HITS);
    expect(relay.local + relay.asked).toBeLessThanOrEqual(LIMIT + 2 - WARM_HITS);
    expect(relay.local).toBeGreaterThanOrEqual(1);
    // Another region gets nothing more: the home counts weur's lease and hits as taken.
    expect((await send("global", user, SINGAPORE)).status).toBe(429);
    expect((await stats(home)).calls).toBeGreaterThan(0);
  });

  it("leaves a request with no location, a strict limit and a pre-counted one at the home", async () => {
    const { addressed, send } = setup();
    const user = uniqueUser();
    expect((await send("global", user)).status).toBe(200);
    expect((await send("strict", user, FRANKFURT)).status).toBe(200);
    expect((await send("precounted", user, FRANKFURT)).status).toBe(200);
    expect(addressed).toHaveLength(3);
    for (const { name, hint } of addressed) {
      expect(name).not.toContain("@");
      expect(hint).toBeUndefined();
    }
  });
});

describe("a home that fails behind the region's copy", () => {
  // Docs: reliability.md, "The relay's failures". The copy's calls to its home go to a real object that throws or one
  // that hangs (test/support/failing-objects.mjs); the edge waits DECISION_TIMEOUT_MS, then FAILURE_MODE decides. With
  // `closed`, nothing is allowed but what the region's lease covers. Break tried: the copy answering a failed ask as
  // allowed (`ask` catching the home's error and returning its lease's verdict): the throwing case failed (200s past
  // the lease); the hanging one is decided by the edge's timeout before the copy's own deadline, so it passes.
  for (const failing of ["throwing", "hanging"] as const) {
    it(`${failing}: requests past the lease get FAILURE_MODE closed's 503, within the decision timeout`, async () => {
      const { addressed, send } = setup({ FAILURE_MODE: "closed", DECISION_TIMEOUT_MS: "100" });
      const user = uniqueUser();
      // Warm in weur (WARM_HITS to the home), then one relayed hit: the copy holds a lease.
      for (let i = 0; i <= WARM_HITS; i++) expect((await send("wide", user, FRANKFURT)).status).toBe(200);
      const copy = addressed[WARM_HITS].name;
      expect(copy).toContain("@weur");
      const { real } = recordingCounters();
      const spare = await runInDurableObject(real.getByName(copy), (o: CounterObject) => {
        const [held] = (o.relay as unknown as { held: Map<string, { budget: number; pending: number; inflight: number }> }).held.values();
        o.homeCounters = (failing === "throwing" ? throwingCounters : hangingCounters) as never;
        return held.budget - held.pending - held.inflight;
      });
      const answers: [number, string | null][] = [];
      for (let i = 0; i < 10; i++) {
        const response = await send("wide", user, FRANKFURT);
        answers.push([response.status, response.headers.get("x-ratelimit-decision")]);
        await response.arrayBuffer();
      }
      const closed: [number, string | null] = [503, "failure-closed"];
      expect(answers).toEqual([...Array.from({ length: spare }, () => [200, null]), ...Array.from({ length: 10 - spare }, () => closed)]);
    });
  }
});
