/**
 * GET /__ratelimit/status on a global limit decided in the request's region
 * (docs/placement.md, "Global limits decided in the region"): the read goes
 * through the region's copy, which counts the hits it allowed from its
 * lease and has not synced to the home yet, so the status is what the next
 * real request from that region sees.
 *
 * Break tried: the status read planned without the request's region
 * (`region` left out in src/admin/quota-status.ts): the read went to the
 * home, which had not been told of the region's lease hits, and the test failed.
 */
import { describe, expect, it } from "vitest";
import { gateway } from "../support/app.ts";

const LIMIT = 8;
const rules = {
  domain: "st-relay",
  descriptors: [{ key: "user", rate_limit: { name: "per-user", unit: "hour", requests_per_unit: LIMIT } }],
  routes: [{ match: {}, descriptors: [[{ key: "user", header: "x-user" }]] }],
};
const FRANKFURT = { colo: "FRA", continent: "EU", country: "DE" } as unknown as RequestInit["cf"];

describe("GET /__ratelimit/status on a relayed global limit", () => {
  it("counts the region's unsynced hits: the status is what the next real request from the region sees, and it spends nothing", async () => {
    const call = gateway(rules);
    const headers = { "x-user": `relay-${Math.random()}` };
    const hit = async () => {
      const res = await call("/api/x", { headers, cf: FRANKFURT });
      return res.status === 200 ? Number(res.headers.get("X-RateLimit-Remaining")) : res.status;
    };
    const status = async () => {
      const res = await call("/__ratelimit/status?method=GET&path=/api/x", { headers, cf: FRANKFURT });
      expect(res.status).toBe(200);
      return (await res.json<{ policies: { remaining: number }[] }>()).policies[0].remaining;
    };
    expect([await hit(), await hit(), await hit()]).toEqual([7, 6, 5]);
    for (let i = 0; i < 3; i++) expect(await status()).toBe(5);
    expect(await hit()).toBe(4);
    const rest: number[] = [];
    for (let i = 0; i < 5; i++) rest.push(await hit());
    expect(rest).toEqual([3, 2, 1, 0, 429]);
  });
});
