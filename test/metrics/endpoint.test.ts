// GET /__ratelimit/metrics after known sequences of decisions, through the
// decision API and through the HTTP gateway.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { samplesOfAllShards } from "../../src/metrics/shard-reads.ts";
import type { Env } from "../../src/config.ts";
import { uniqueIp } from "../support/app.ts";
import { d, envoyApi } from "../support/envoy.ts";
import { throwingCounters } from "../support/failing.ts";

const suffix = `${Date.now()}`;
const domain = `metrics-${suffix}`;
const rules = {
  domain,
  descriptors: [
    { key: "user", rate_limit: { name: "five", unit: "minute", requests_per_unit: 5, algorithm: "fixed_window" } },
    { key: "trial", shadow_mode: true, rate_limit: { name: "one", unit: "minute", requests_per_unit: 1 } },
    { key: "path", value: "/metered", descriptors: [{ key: "remote_address", rate_limit: { name: "two", unit: "minute", requests_per_unit: 2 } }] },
  ],
  routes: [{ match: { path: "/metered" }, descriptors: [[{ key: "path", value: "/metered" }, { key: "remote_address" }]] }],
};
const api = envoyApi(rules);

async function scrape(target = api): Promise<string> {
  const res = await target.admin("/__ratelimit/metrics");
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
  return res.text();
}

function value(text: string, series: string): number {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

const stat = (name: string, descriptor: string, limit: string) =>
  `ratelimit_service_rate_limit_${name}{domain="${domain}",descriptor="${descriptor}",limit="${limit}"}`;

describe("GET /__ratelimit/metrics", () => {
  it("counts Envoy's stats per domain, descriptor and limit", async () => {
    for (let i = 0; i < 6; i++) await api.json({ domain, descriptors: [d(["user", "alice"])] });
    const text = await scrape();
    expect(text).toContain("# TYPE ratelimit_service_rate_limit_total_hits counter");
    expect(value(text, stat("total_hits", "user", "five"))).toBe(6);
    expect(value(text, stat("within_limit", "user", "five"))).toBe(5);
    // near_limit: hits past 80 % of 5 (4) while still within, plus none of the over ones.
    expect(value(text, stat("near_limit", "user", "five"))).toBe(1);
    expect(value(text, stat("over_limit", "user", "five"))).toBe(1);
    expect(text).toContain(`${stat("shadow_mode", "user", "five")} 0`);
  });

  it("counts shadow_mode hits", async () => {
    await api.json({ domain, descriptors: [d(["trial", "t1"])] });
    await api.json({ domain, descriptors: [d(["trial", "t1"])] });
    const text = await scrape();
    expect(value(text, stat("total_hits", "trial", "one"))).toBe(2);
    expect(value(text, stat("over_limit", "trial", "one"))).toBe(1);
    expect(value(text, stat("shadow_mode", "trial", "one"))).toBe(1);
  });

  it("counts decisions of the HTTP gateway too, under the rule's Envoy stat key", async () => {
    const ip = uniqueIp();
    for (let i = 0; i < 3; i++) await api.call("/metered", { ip });
    const text = await scrape();
    expect(value(text, stat("total_hits", "path_/metered.remote_address", "two"))).toBe(3);
    expect(value(text, stat("over_limit", "path_/metered.remote_address", "two"))).toBe(1);
  });

  it("counts descriptors for unknown domains, per domain", async () => {
    const unknown = `nowhere-${suffix}`;
    await api.json({ domain: unknown, descriptors: [d(["a", "b"]), d(["c", "d"])] });
    expect(value(await scrape(), `ratelimit_service_rate_limit_domain_not_found{domain="${unknown}"}`)).toBe(2);
  });

  it("counts failure-mode decisions (local, open, closed), rules uploads and global shadow decisions", async () => {
    // Real objects whose every call throws (test/support/failing-objects.mjs).
    const broken = throwingCounters;
    const beforeText = await scrape();
    const open = envoyApi(rules, { COUNTERS: broken, FAILURE_MODE: "open" });
    const closed = envoyApi(rules, { COUNTERS: broken, FAILURE_MODE: "closed" });
    await open.json({ domain, descriptors: [d(["user", "x"])] });
    await closed.call("/metered", { ip: uniqueIp() });
    // The default, local: decided by the isolate's own counters, counted as such.
    const local = envoyApi(rules, { COUNTERS: broken });
    await local.call("/metered", { ip: uniqueIp() });
    await local.json({ domain, descriptors: [d(["user", "y"])] });
    const uploads = envoyApi(rules, {}, { objectName: `metrics-rules-${suffix}` });
    await uploads.admin("/__ratelimit/rules", { method: "PUT", body: JSON.stringify(rules) });
    await uploads.admin("/__ratelimit/rules", { method: "PUT", body: "{}" });
    const shadow = envoyApi(rules, { SHADOW_MODE: "true" });
    await shadow.json({ domain, descriptors: [d(["user", "alice"])] });
    const text = await scrape();
    const grew = (series: string) => value(text, series) - value(beforeText, series);
    expect(grew('floodgate_failure_mode_decisions_total{mode="open"}')).toBe(1);
    expect(grew('floodgate_failure_mode_decisions_total{mode="closed"}')).toBe(1);
    expect(grew('floodgate_failure_mode_decisions_total{mode="local"}')).toBe(2);
    expect(grew("ratelimit_service_config_load_success")).toBe(1);
    expect(grew("ratelimit_service_config_load_error")).toBe(1);
    expect(grew("ratelimit_service_global_shadow_mode")).toBe(1);
  });

  it("sends an isolate's counts after METRICS_FLUSH_MS even with no further request", async () => {
    const slowDomain = `metrics-slow-${suffix}`;
    const slow = envoyApi({ ...rules, domain: slowDomain }, { METRICS_FLUSH_MS: "200" });
    // Two decisions inside one interval: the second one's counts wait for the scheduled send.
    await slow.json({ domain: slowDomain, descriptors: [d(["user", "bob"])] });
    await slow.json({ domain: slowDomain, descriptors: [d(["user", "bob"])] });
    // Read the shards directly: a scrape would send this isolate's counts itself.
    const samples = await samplesOfAllShards((env as unknown as Env).METRICS);
    const hits = samples.find((s) => s.name === "ratelimit_service_rate_limit_total_hits" && s.labels.some(([k, v]) => k === "domain" && v === slowDomain));
    expect(hits?.value).toBe(2);
  });
});
