/**
 * `scope: "region"` through the real gateway and real counter objects
 * (docs/placement.md): requests carry a simulated `request.cf` from three
 * regions. Each region counts a region-scoped key on its own (R × the limit
 * in all, never more), a global key stays exact across regions, a request
 * with no location is one region, and every object a regional decision
 * addresses is its region's own, created with its region's location hint.
 *
 * Breaks tried, each seen to fail here: the region left out of the counter
 * key and object name in src/limiter/plan.ts (the regions shared 5); the
 * hint left out in src/durable/counters/regions.ts counterStub (the hint assertions);
 * `region` not passed by src/gateway/admit.ts (every request in `local`);
 * every limit made regional in plan.ts (the global key gave 3 × 5); no
 * region passed by src/admin/json.ts (the /json case failed).
 */
import { WARM_HITS } from "../../src/durable/counters/warm-keys.ts";
import { describe, expect, it } from "vitest";
import { auth, TOKEN } from "../support/envoy.ts";
import { gateway } from "../support/app.ts";
import { recordingCounters } from "../support/recording-counters.ts";

const LIMIT = 5;
const leaf = (extra: Record<string, unknown> = {}) => [{ key: "user", rate_limit: { unit: "minute", requests_per_unit: LIMIT, ...extra } }];
const rules = {
  domain: "gw-region",
  descriptors: [
    { key: "tier", value: "regional", descriptors: leaf({ scope: "region" }) },
    { key: "tier", value: "global", descriptors: leaf() },
    { key: "tier", value: "precounted", descriptors: leaf({ scope: "region", precount: { sync_ms: 50 } }) },
  ],
  routes: ["regional", "global", "precounted"].map((tier) => ({
    match: { path: `/${tier}` },
    descriptors: [
      [
        { key: "tier", value: tier },
        { key: "user", header: "x-user" },
      ],
    ],
  })),
};

/** What workerd takes as `request.cf` in a RequestInit (the edge sets it in production). */
type Cf = RequestInit["cf"];
const cfOf = (where: { colo: string; continent: string; country: string }) => where as unknown as Cf;

/** Three data centers in three regions (docs/placement.md's table). */
const FRANKFURT = cfOf({ colo: "FRA", continent: "EU", country: "DE" }); // weur
const ASHBURN = cfOf({ colo: "IAD", continent: "NA", country: "US" }); // enam
const SINGAPORE = cfOf({ colo: "SIN", continent: "AS", country: "SG" }); // apac
const PLACES = [FRANKFURT, ASHBURN, SINGAPORE] as const;

let n = 0;
const uniqueUser = () => `u${++n}-${Date.now()}`;

function setup() {
  const { addressed, counters } = recordingCounters();
  const call = gateway(rules, { ADMIN_TOKEN: TOKEN, COUNTERS: counters });
  const send = (tier: string, user: string, cf?: Cf) => call(`/${tier}`, { headers: { "x-user": user }, ...(cf ? { cf } : {}) });
  const statuses = async (tier: string, user: string, cf: Cf | undefined, times: number) => {
    const out: number[] = [];
    for (let i = 0; i < times; i++) out.push((await send(tier, user, cf)).status);
    return out;
  };
  const lookup = (user: string, region?: string, tier = "regional", method = "GET") =>
    call(`/__ratelimit/counters?domain=gw-region&descriptor=tier=${tier},user=${user}${region === undefined ? "" : `&region=${region}`}`, {
      method,
      headers: auth,
    });
  // Envoy's /json over HTTP: the decision API reads its request's location too.
  const envoyJson = async (user: string, hits: number, cf?: Cf) => {
    const body = {
      domain: "gw-region",
      descriptors: [
        {
          entries: [
            { key: "tier", value: "regional" },
            { key: "user", value: user },
          ],
        },
      ],
      hits_addend: hits,
    };
    const res = await call("/__ratelimit/json", {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify(body),
      ...(cf ? { cf } : {}),
    });
    return (await res.json<{ overallCode: string }>()).overallCode;
  };
  return { addressed, send, statuses, lookup, envoyJson };
}

const allowed = (statuses: readonly number[]) => statuses.filter((s) => s === 200).length;

describe('scope "region" (docs/placement.md)', () => {
  it("gives each of three regions its own limit: 3 × 5 in all, never more", async () => {
    const { send, statuses } = setup();
    const user = uniqueUser();
    // The first answer in each region shows that region's own count.
    for (const cf of PLACES) expect((await send("regional", user, cf)).headers.get("X-RateLimit-Remaining")).toBe(String(LIMIT - 1));
    const perRegion = await Promise.all(PLACES.map((cf) => statuses("regional", user, cf, LIMIT + 3)));
    expect(perRegion.map(allowed)).toEqual([LIMIT - 1, LIMIT - 1, LIMIT - 1]);
    // Once every region is spent, none gives more: the worst case is R × the limit, exactly.
    const after = await Promise.all(PLACES.map((cf) => statuses("regional", user, cf, 2)));
    expect(after.flat().every((s) => s === 429)).toBe(true);
  });

  it("keeps a global key exact across the same three regions: 5 in all", async () => {
    const { statuses } = setup();
    const user = uniqueUser();
    const perRegion = await Promise.all(PLACES.map((cf) => statuses("global", user, cf, LIMIT + 3)));
    expect(perRegion.map(allowed).reduce((a, b) => a + b)).toBe(LIMIT);
  });

  it("counts requests with no location as one region, apart from located ones", async () => {
    const { statuses } = setup();
    const user = uniqueUser();
    expect(allowed(await statuses("regional", user, undefined, LIMIT + 3))).toBe(LIMIT);
    expect(allowed(await statuses("regional", user, FRANKFURT, LIMIT + 3))).toBe(LIMIT);
    expect(allowed(await statuses("regional", user, undefined, 2))).toBe(0);
  });

  it("decides in the request's region only: every object addressed is that region's, with its hint", async () => {
    const { addressed, send } = setup();
    const user = uniqueUser();
    for (const [cf, region] of [
      [FRANKFURT, "weur"],
      [ASHBURN, "enam"],
      [SINGAPORE, "apac"],
    ] as const) {
      addressed.length = 0;
      for (let i = 0; i < 3; i++) expect((await send("regional", user, cf)).status).toBe(200);
      expect(addressed.length).toBeGreaterThan(0);
      for (const { name, hint } of addressed) {
        expect(name.endsWith(`@${region}`)).toBe(true);
        expect(hint).toBe(region);
      }
    }
    // No location: region local, objects of its own, no hint (Cloudflare places them near their first caller).
    addressed.length = 0;
    await send("regional", user);
    expect(addressed.map(({ name, hint }) => [name.slice(name.lastIndexOf("@")), hint])).toEqual([["@local", undefined]]);
    // A global key from a region goes to its home until warm there, then asks that region's copy of its home object
    // (which relays to the home, docs/placement.md "Relay only what pays"); with no location, the home itself, with no hint.
    for (let i = 0; i < WARM_HITS; i++) await send("global", user, FRANKFURT);
    addressed.length = 0;
    await send("global", user, FRANKFURT);
    expect(addressed).toHaveLength(1);
    expect(addressed[0]).toEqual({ name: expect.stringMatching(/^gw-region\/shard\/\d+@weur$/), hint: "weur" });
    addressed.length = 0;
    await send("global", user);
    expect(addressed).toHaveLength(1);
    expect(addressed[0].name).not.toContain("@");
    expect(addressed[0].hint).toBeUndefined();
  });

  it("composes with precount: each region pre-counts its own copy, 5 each and never more", async () => {
    const { addressed, statuses } = setup();
    const user = uniqueUser();
    const perRegion = await Promise.all(PLACES.map((cf) => statuses("precounted", user, cf, LIMIT + 3)));
    expect(perRegion.map(allowed)).toEqual([LIMIT, LIMIT, LIMIT]);
    expect(new Set(addressed.map(({ name }) => name.slice(name.lastIndexOf("@"))))).toEqual(new Set(["@weur", "@enam", "@apac"]));
  });
});

describe("the decision API (/json) on a region-scoped key", () => {
  it("counts each region's calls on their own, and calls with no location in region local", async () => {
    const { envoyJson } = setup();
    const user = uniqueUser();
    expect(await envoyJson(user, LIMIT, FRANKFURT)).toBe("OK");
    expect(await envoyJson(user, 1, FRANKFURT)).toBe("OVER_LIMIT");
    expect(await envoyJson(user, LIMIT, SINGAPORE)).toBe("OK");
    expect(await envoyJson(user, LIMIT)).toBe("OK");
    expect(await envoyJson(user, 1)).toBe("OVER_LIMIT");
  });
});

describe("admin counter lookup of a region-scoped key", () => {
  it("reads the copy region= names, and refuses a lookup that names no region or a wrong one", async () => {
    const { statuses, lookup } = setup();
    const user = uniqueUser();
    await statuses("regional", user, FRANKFURT, 2);
    await statuses("regional", user, SINGAPORE, 4);
    const remaining = async (region: string) => {
      const res = await lookup(user, region);
      expect(res.status).toBe(200);
      const body = await res.json<{ region: string; limits: { remaining: number }[] }>();
      expect(body.region).toBe(region);
      return body.limits[0].remaining;
    };
    expect([await remaining("weur"), await remaining("apac"), await remaining("enam")]).toEqual([LIMIT - 2, LIMIT - 4, LIMIT]);

    const problems: [string | undefined, string, RegExp][] = [
      [undefined, "regional", /is counted per region \(scope "region"\): add region=<one of wnam, enam, sam, weur, eeur, apac, oc, afr, me, local>/],
      ["mars", "regional", /Unknown region "mars"/],
      ["__proto__", "regional", /Unknown region "__proto__"/],
      ["weur", "global", /is counted globally: drop "region"/],
      ["weur&region=apac", "regional", /give at most one "region" query parameter/],
    ];
    for (const [region, tier, message] of problems) {
      const res = await lookup(user, region, tier);
      expect(res.status).toBe(400);
      expect((await res.json<{ detail: string }>()).detail).toMatch(message);
    }
  });

  it("resets one region's copy only", async () => {
    const { statuses, lookup, addressed } = setup();
    const user = uniqueUser();
    await statuses("regional", user, FRANKFURT, LIMIT);
    await statuses("regional", user, ASHBURN, LIMIT);
    addressed.length = 0;
    expect((await lookup(user, "weur", "regional", "DELETE")).status).toBe(200);
    // The admin's reset addressed the region's object with its hint, wherever the admin is.
    expect(addressed.length).toBeGreaterThan(0);
    expect(addressed.every(({ name, hint }) => name.endsWith("@weur") && hint === "weur")).toBe(true);
    expect(allowed(await statuses("regional", user, FRANKFURT, 1))).toBe(1);
    expect(allowed(await statuses("regional", user, ASHBURN, 1))).toBe(0);
  });
});
