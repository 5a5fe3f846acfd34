// Metric series age out and label values are cut (docs/metrics.md,
// "Cardinality"): once an attacker's values have filled the MetricsObject's
// 10,000 slots and gone quiet, real new series are recorded again instead of
// folding into `_overflow`; a detailed_metric or unknown-domain label is at
// most 128 characters. Breaks tried: pruning removed (the new series after
// the idle time folds into _overflow); cutLabel returning its input (the
// label tests fail); shownValue hashing with fixed keys again, ignoring the
// deployment's (the keyed-label test fails: both deployments show one label).
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/config.ts";
import { cutLabel, METRIC_LABEL_MAX_LENGTH, shownValue } from "../../src/metrics/labels.ts";
import { descriptorText } from "../../src/metrics/traffic-shape.ts";
import { MAX_SERIES, SERIES_IDLE_MS } from "../../src/durable/metrics/metrics-object.ts";
import { OVERFLOW, type Sample } from "../../src/metrics/samples.ts";
import { uniqueIp, workerLabelKey } from "../support/app.ts";
import { d, envoyApi } from "../support/envoy.ts";

const metrics = (env as unknown as Env).METRICS;
const sample = (descriptor: string, value = 1): Sample => ({
  name: "ratelimit_service_rate_limit_total_hits",
  labels: [
    ["domain", "api"],
    ["descriptor", descriptor],
    ["limit", "per-key"],
  ],
  value,
});
const descriptorOf = (s: Sample) => s.labels[1][1];

describe("metric series age out", () => {
  it("after an attacker's values fill every slot and go quiet for SERIES_IDLE_MS, a real new series is recorded, not folded", async () => {
    // The object's own methods, as the recorder calls them (the stub's inferred types lose the label tuples).
    const stub = metrics.getByName(`security-metrics-${Date.now()}`) as unknown as {
      add(samples: readonly Sample[], traffic: undefined, now: number): Promise<void>;
      read(): Promise<Sample[]>;
    };
    const t0 = 1_800_000_000_000; // a driven clock: the object takes `now` from the test
    for (let from = 0; from < MAX_SERIES; from += 2_000) {
      await stub.add(
        Array.from({ length: 2_000 }, (_, i) => sample(`api_key_junk${from + i}`)),
        undefined,
        t0,
      );
    }
    // While the junk is fresh the cap holds: a new series folds into _overflow.
    await stub.add([sample("api_key_early")], undefined, t0 + 60_000);
    let read = await stub.read();
    expect(read.some((s) => descriptorOf(s) === "api_key_early")).toBe(false);
    expect(read.find((s) => descriptorOf(s) === OVERFLOW)?.value).toBe(1);
    // A series still in use (added to halfway) outlives the junk.
    await stub.add([sample("api_key_junk0", 5)], undefined, t0 + SERIES_IDLE_MS / 2);
    await stub.add([sample("api_key_real", 3)], undefined, t0 + SERIES_IDLE_MS + 1);
    read = await stub.read();
    expect(read.find((s) => descriptorOf(s) === "api_key_real")?.value).toBe(3);
    expect(read.find((s) => descriptorOf(s) === "api_key_junk0")?.value).toBe(6);
    expect(read.some((s) => descriptorOf(s) === "api_key_junk1")).toBe(false);
    expect(read.length).toBeLessThan(10);
  });
});

describe("metric label values are cut", () => {
  it("to METRIC_LABEL_MAX_LENGTH, keeping a readable prefix, and two long values apart", () => {
    expect(METRIC_LABEL_MAX_LENGTH).toBe(128);
    const a = cutLabel(`api_key_${"a".repeat(4_096)}1`);
    const b = cutLabel(`api_key_${"a".repeat(4_096)}2`);
    expect(a).toHaveLength(128);
    expect(a.startsWith("api_key_aaaa")).toBe(true);
    expect(a).not.toBe(b);
    expect(cutLabel("api_key_short")).toBe("api_key_short");
    // Never half a surrogate pair.
    expect(cutLabel(`${"x".repeat(118)}${"😀".repeat(20)}`).length).toBeLessThanOrEqual(128);
    expect(cutLabel(`${"x".repeat(118)}${"😀".repeat(20)}`)).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
  });

  it("in the scrape, for a detailed_metric descriptor from a 4 KB header and an unknown domain of 1,000 characters", async () => {
    const domain = `security-labels-${Date.now()}`;
    const rules = {
      domain,
      descriptors: [{ key: "api_key", detailed_metric: true, rate_limit: { unit: "minute", requests_per_unit: 100 } }],
      routes: [{ match: { path: "/*" }, descriptors: [[{ key: "api_key", header: "x-api-key" }]] }],
    };
    const api = envoyApi(rules);
    const long = `k${"q".repeat(4_096)}`;
    expect((await api.call("/x", { ip: uniqueIp(), headers: { "x-api-key": long } })).status).toBe(200);
    await api.json({ domain: "u".repeat(1_000), descriptors: [d(["api_key", "v"])] });
    const text = await (await api.admin("/__ratelimit/metrics")).text();
    const lines = text.split("\n").filter((line) => line.includes(domain) || line.includes("uuuuuuuu"));
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) for (const [, v] of line.matchAll(/="([^"]*)"/g)) expect(v.length).toBeLessThanOrEqual(METRIC_LABEL_MAX_LENGTH);
    expect(lines.some((line) => line.includes('descriptor="api_key_kqqq…#'))).toBe(true);
  });
});

describe("a limited value's label is keyed with the deployment's secret", () => {
  it("so two deployments show one address differently in the scrape and the dashboard, each as its own SHARD_KEY gives it", async () => {
    // An address sent in a header a rule limits (not the built-in remote_address, shown as it is): with a
    // fixed-key hash, trying all 2^32 IPv4 addresses against its label gives it back at once.
    const value = "203.0.113.77";
    const shown: string[] = [];
    for (const SHARD_KEY of ["first-deployment-secret", "second-deployment-secret"]) {
      const domain = `security-keyed-${SHARD_KEY.slice(0, 5)}-${Date.now()}`;
      const rules = {
        domain,
        descriptors: [{ key: "client", detailed_metric: true, rate_limit: { unit: "minute", requests_per_unit: 1, algorithm: "fixed_window" } }],
        routes: [{ match: { path: "/*" }, descriptors: [[{ key: "client", header: "x-client" }]] }],
      };
      const api = envoyApi(rules, { SHARD_KEY });
      const statuses: number[] = [];
      for (let i = 0; i < 2; i++) statuses.push((await api.call("/x", { ip: uniqueIp(), headers: { "x-client": value } })).status);
      expect(statuses).toEqual([200, 429]);
      const label = `client_${shownValue("client", value, workerLabelKey({ SHARD_KEY }))}`;
      expect(label).toMatch(/^client_203…#[0-9a-f]{16}$/);
      const text = await (await api.admin("/__ratelimit/metrics")).text();
      expect(text).toContain(`ratelimit_service_rate_limit_over_limit{domain="${domain}",descriptor="${label}",`);
      expect(text).not.toContain(value);
      const traffic = await (await api.admin("/__ratelimit/traffic")).json<any>();
      const policy = traffic.policies.find((p: any) => p.domain === domain && p.descriptor === "client");
      expect(policy.top_now.keys.map((k: { key: string }) => k.key)).toEqual([descriptorText([{ key: "client", value: label.slice("client_".length) }])]);
      shown.push(label);
    }
    expect(shown[0]).not.toBe(shown[1]);
  });
});
