/**
 * The rule advisor end to end (docs/advisor.md): traffic of a known pattern
 * through the gateway, sampled by the real store (SAMPLE_KEY_RATE 1), read
 * back by POST /__ratelimit/replay through GET /__ratelimit/sample. The rules
 * in force must reproduce every live decision; a tighter and a looser limit
 * must refuse exactly what an independent count of the same requests says.
 * A sliding log of a minute: the whole test runs inside one window, so the
 * count below is the exact oracle whatever the clock.
 */
import { describe, expect, it } from "vitest";
import { sampledGateway } from "./support.ts";

const suffix = `${Date.now()}`;
const domain = `e2e-${suffix}`;

function rulesWith(limit: number) {
  return {
    domain,
    descriptors: [{ key: "api_key", rate_limit: { name: "per-key", unit: "minute", requests_per_unit: limit, algorithm: "sliding_window_log" } }],
    routes: [{ match: { path: "/items" }, descriptors: [[{ key: "api_key", header: "x-api-key" }]] }],
  };
}

/** Requests per key, in an interleaved order: 9 keys sending 1 to 9 requests. */
const pattern: string[] = [];
for (let round = 0; round < 9; round++) for (let key = 1; key <= 9; key++) if (round < key) pattern.push(`key-${key}`);

/** The independent count: in one window, a key's requests past the limit are refused. */
function refusalsAt(limit: number): { refusals: number; keysRefused: number } {
  const perKey = new Map<string, number>();
  for (const key of pattern) perKey.set(key, (perKey.get(key) ?? 0) + 1);
  let refusals = 0;
  let keysRefused = 0;
  for (const n of perKey.values()) {
    refusals += Math.max(0, n - limit);
    if (n > limit) keysRefused += 1;
  }
  return { refusals, keysRefused };
}

describe("the advisor on the gateway's own sample", () => {
  it("replays the rules in force exactly, and a tighter and a looser limit as an independent count says", async () => {
    const live = 5;
    const api = sampledGateway(rulesWith(live), { SAMPLE_KEY_RATE: "1" });
    let liveRefused = 0;
    for (const key of pattern) {
      const res = await api.call("/items", { headers: { "x-api-key": `${key}-${suffix}` } });
      await res.arrayBuffer();
      if (res.status === 429) liveRefused += 1;
    }
    expect(liveRefused).toBe(refusalsAt(live).refusals);

    const replay = async (limit: number) => {
      const res = await api.admin("/__ratelimit/replay", { method: "POST", body: JSON.stringify(rulesWith(limit)) });
      expect(res.status).toBe(200);
      return (await res.json()) as {
        sample_rows: number;
        reproduced: { matching: number; of: number };
        limits: { name: string; requests: number; refusals: number; keys_refused: number; in_force: { refusals: number } | null }[];
      };
    };
    const same = await replay(live);
    expect(same.sample_rows).toBe(pattern.length);
    expect(same.reproduced).toEqual({ matching: pattern.length, of: pattern.length });
    expect(same.limits[0]).toMatchObject({ name: "per-key", requests: pattern.length, refusals: refusalsAt(live).refusals });

    for (const limit of [2, 8]) {
      const report = await replay(limit);
      const expected = refusalsAt(limit);
      expect(report.limits[0]).toMatchObject({ requests: pattern.length, refusals: expected.refusals, keys_refused: expected.keysRefused });
      expect(report.limits[0].in_force?.refusals).toBe(refusalsAt(live).refusals);
    }
  });
});
