/**
 * A user's Worker that binds `CounterObject` under another name (`LIMITS`)
 * and has no `COUNTERS` binding (test/support/renamed-binding-worker.ts, its
 * own workerd service): a request with `request.cf` is relayed through its
 * region's copy of the key's home object, and that copy must reach the home
 * through the namespace it lives in, whatever the binding is called
 * (docs/placement.md, "Global limits decided in the region").
 *
 * Break tried, seen to fail here: the regional object calling its home
 * through `env.COUNTERS` by name, as it did (every request allowed: the call
 * threw and the failure mode opened).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { counterKey } from "../../src/durable/counters/placement.ts";
import { inRegion } from "../../src/durable/counters/regions.ts";

const worker = (env as unknown as { RENAMED_BINDING: Fetcher }).RENAMED_BINDING;
const FRANKFURT = { colo: "FRA", continent: "EU", country: "DE" } as unknown as RequestInit["cf"]; // weur

describe("a Worker binding CounterObject as LIMITS", () => {
  it("limits a relayed global key exactly: the regional copy asks its home, nothing fails open", async () => {
    const user = `u-${Date.now()}-${Math.random()}`;
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const response = await worker.fetch("http://user.test/limited", { headers: { "x-user": user }, cf: FRANKFURT });
      await response.arrayBuffer();
      statuses.push(response.status);
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429, 429]);
    const home = `renamed-binding/key/${counterKey("renamed-binding", [{ key: "user", value: user }])}`;
    const stats = async (object: string) =>
      (await worker.fetch(`http://user.test/stats?object=${encodeURIComponent(object)}`)).json<{
        calls: number;
        relay: { asked: number; homeCalls: number };
      }>();
    // The first WARM_HITS went to the home, which said the key is warm in weur; the next ones the edge did not answer
    // from its block cache went to the Frankfurt copy, which asked the home (docs/placement.md, "Relay only what pays").
    const regional = await stats(inRegion(home, "weur"));
    expect(regional.calls).toBeGreaterThanOrEqual(1);
    expect(regional.relay.homeCalls).toBeGreaterThan(0);
    expect((await stats(home)).calls).toBeGreaterThan(0);
  });
});
