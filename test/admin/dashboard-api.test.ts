// The dashboard's JSON endpoints after known sequences of real decisions:
// GET /__ratelimit/traffic (series per bucket, the keys most limited) and
// GET /__ratelimit/health (rule health), through the decision API.
import { beforeEach, describe, expect, it } from "vitest";
import { shownValue } from "../../src/metrics/labels.ts";
import { descriptorText } from "../../src/metrics/traffic-shape.ts";
import type { Env } from "../../src/config.ts";
import { testEnv, workerLabelKey } from "../support/app.ts";
import { drivenCounters, OBJECT_EPOCH } from "../support/driven-object.ts";
import { d, envoyApi as realTimeApi } from "../support/envoy.ts";
import { throwingCounters } from "../support/failing.ts";
import { ownMetrics } from "../support/own-metrics.ts";

const suffix = `${Date.now()}`;

/**
 * One driven clock per test (docs/testing.md) for the decision API's isolate
 * (its decisions and the dashboard's 10 s buckets) and the counter objects:
 * it stands still, 2.5 s into a bucket, so no bucket or window turns during a
 * test. Each test starts an hour after the last (the file's metrics shards are shared by its tests).
 * The shards are the file's own (support/own-metrics.ts): another file's isolate on a later driven clock
 * would take the failure ring's slot in a shared one and drop these counts.
 */
const clock = { at: OBJECT_EPOCH };
const now = () => clock.at;
beforeEach(() => {
  clock.at = Math.ceil((clock.at + 1) / 3_600_000) * 3_600_000 + 2_500;
});
const metrics = ownMetrics(`dashboard-api-${suffix}/`);
const envoyApi = (rules: unknown, vars: Partial<Env> = {}) =>
  realTimeApi(rules, { COUNTERS: drivenCounters(testEnv.COUNTERS, now), METRICS: metrics, ...vars }, { now });

function rulesFor(domain: string) {
  return {
    domain,
    descriptors: [
      { key: "user", rate_limit: { name: "five", unit: "minute", requests_per_unit: 5, algorithm: "fixed_window" } },
      { key: "trial", shadow_mode: true, rate_limit: { name: "one", unit: "minute", requests_per_unit: 1, algorithm: "fixed_window" } },
      { key: "legacy", rate_limit: { name: "ten", unit: "hour", requests_per_unit: 10 } },
    ],
  };
}

async function json(res: Response): Promise<any> {
  expect(res.status).toBe(200);
  expect(res.headers.get("cache-control")).toBe("no-store");
  return res.json();
}

describe("GET /__ratelimit/traffic", () => {
  it("shows a policy's hits in its bucket and the limited key at the top, with exact counts", async () => {
    const domain = `traffic-${suffix}`;
    const api = envoyApi(rulesFor(domain));
    // All in one 10-second bucket (and so in one minute's fixed window), in seconds.
    const bucket = (clock.at - 2_500) / 1_000;
    for (let i = 0; i < 7; i++) await api.json({ domain, descriptors: [d(["user", "a,b"])] });
    for (let i = 0; i < 2; i++) await api.json({ domain, descriptors: [d(["user", "bob"])] });
    for (let i = 0; i < 3; i++) await api.json({ domain, descriptors: [d(["trial", "t1"])] });
    const view = await json(await api.admin("/__ratelimit/traffic"));
    expect(view.bucket_seconds).toBe(10);
    expect(view.to).toBe(bucket);
    const policy = (descriptor: string) => view.policies.find((p: any) => p.domain === domain && p.descriptor === descriptor);
    const users = policy("user");
    expect(users).toMatchObject({ limit: "five", window_seconds: 60, shadow: false });
    // 5 of "a,b" and 2 of bob allowed, 2 of "a,b" limited; the 5th hit of "a,b" was past 80 % of 5.
    expect(users.series).toEqual([[bucket, 7, 2, 1, 0]]);
    // A limited value is shown as a short prefix and a hash, never as sent (docs/metrics.md).
    expect(users.top_now).toEqual({
      total: 2,
      error: 0,
      keys: [{ key: descriptorText([{ key: "user", value: shownValue("user", "a,b", workerLabelKey()) }]), count: 2, max: 2 }],
    });
    expect(JSON.stringify(view)).not.toContain("a%2Cb");
    expect(users.top_hour).toEqual(users.top_now);
    const trial = policy("trial");
    expect(trial).toMatchObject({ shadow: true, totals: { allowed: 1, limited: 0, near_limit: 1, shadow_would_limit: 2 } });
    expect(trial.top_now.keys).toEqual([{ key: descriptorText([{ key: "trial", value: shownValue("trial", "t1", workerLabelKey()) }]), count: 2, max: 2 }]);
    expect(policy("legacy")).toBeUndefined();
    // The counters API takes the value itself, which the operator knows and the table no longer holds.
    const lookup = await api.admin(`/__ratelimit/counters?domain=${domain}&descriptor=user=a%2Cb`);
    expect(lookup.status).toBe(200);
    expect((await lookup.json<any>()).descriptor).toEqual([{ key: "user", value: "a,b" }]);
  });

  it("counts failure-mode decisions per bucket", async () => {
    const domain = `traffic-failures-${suffix}`;
    const before = (await json(await envoyApi(rulesFor(domain)).admin("/__ratelimit/traffic"))).failures.totals;
    await envoyApi(rulesFor(domain), { COUNTERS: throwingCounters, FAILURE_MODE: "open" }).json({ domain, descriptors: [d(["user", "x"])] });
    const closed = envoyApi(rulesFor(domain), { COUNTERS: throwingCounters, FAILURE_MODE: "closed" });
    for (let i = 0; i < 2; i++) await closed.json({ domain, descriptors: [d(["user", "x"])] });
    // Each request waited for its background work (support/app.ts), the isolate's send with it.
    const after = (await json(await envoyApi(rulesFor(domain)).admin("/__ratelimit/traffic"))).failures.totals;
    const deltas = { open: after.failure_open - before.failure_open, closed: after.failure_closed - before.failure_closed };
    expect(deltas).toEqual({ open: 1, closed: 2 });
  });

  it("needs the admin token", async () => {
    const api = envoyApi(rulesFor(`traffic-auth-${suffix}`));
    for (const path of ["/__ratelimit/traffic", "/__ratelimit/health"]) {
      expect((await api.call(path)).status).toBe(401);
      expect((await api.admin(path, { method: "POST" })).status).toBe(405);
    }
  });
});

describe("GET /__ratelimit/health", () => {
  it("names rules that matched nothing, limit too much, or would limit in shadow mode", async () => {
    const domain = `health-${suffix}`;
    const api = envoyApi(rulesFor(domain));
    for (let i = 0; i < 7; i++) await api.json({ domain, descriptors: [d(["user", "alice"])] });
    for (let i = 0; i < 4; i++) await api.json({ domain, descriptors: [d(["trial", "t1"])] });
    const mine = (list: any[]) => list.filter((p) => p.domain === domain).map((p) => p.descriptor);

    const loose = await json(await api.admin("/__ratelimit/health"));
    expect(loose).toMatchObject({ limited_share: 0.1, min_hits: 20 });
    expect(mine(loose.unmatched)).toEqual(["legacy"]);
    // 7 hits are fewer than min_hits 20: not judged.
    expect(mine(loose.limiting_too_much)).toEqual([]);
    const shadow = loose.shadow_would_limit.find((p: any) => p.domain === domain);
    expect(shadow).toMatchObject({ descriptor: "trial", hits: 4, shadow_would_limit: 3, share: 0.75 });

    const strict = await json(await api.admin("/__ratelimit/health?limited_share=0.25&min_hits=5"));
    const users = strict.limiting_too_much.find((p: any) => p.domain === domain);
    expect(users).toMatchObject({ descriptor: "user", limit: "five", hits: 7, limited: 2 });
    expect(users.share).toBeCloseTo(2 / 7, 12);
    const lenient = await json(await api.admin("/__ratelimit/health?limited_share=0.3&min_hits=5"));
    expect(mine(lenient.limiting_too_much)).toEqual([]);
  });

  it("answers 400 naming a bad threshold", async () => {
    const api = envoyApi(rulesFor(`health-bad-${suffix}`));
    for (const [query, name] of [
      ["limited_share=0", "limited_share"],
      ["limited_share=1.5", "limited_share"],
      ["limited_share=abc", "limited_share"],
      ["min_hits=0", "min_hits"],
      ["min_hits=2.5", "min_hits"],
      ["min_hits=", "min_hits"],
    ]) {
      const res = await api.admin(`/__ratelimit/health?${query}`);
      expect(res.status).toBe(400);
      expect((await res.json<{ detail: string }>()).detail).toContain(`"${name}"`);
    }
  });
});
