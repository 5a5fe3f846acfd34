/**
 * The traffic sample (docs/advisor.md, "Sample"): rows of decided requests
 * kept per domain in the metrics shards, whole keys sampled by hash, and
 * exported by GET /__ratelimit/sample.
 */
import { describe, expect, it } from "vitest";
import { digestValue } from "../../src/advisor/digest.ts";
import { keySampled } from "../../src/advisor/key-sampling.ts";
import { shardKeyFrom } from "../../src/durable/counters/placement.ts";
import { METRICS_SHARDS, metricsShardNames } from "../../src/metrics/shards.ts";
import { testEnv, uniqueIp } from "../support/app.ts";
import { recordingCounters } from "../support/recording-counters.ts";
import { bodyText, countingMetrics, sampledGateway } from "./support.ts";

const suffix = `${Date.now()}`;
/** The gateway's shard key (no SHARD_KEY in the tests: the one derived from the namespace), which keys the sampling hash. */
const SHARD = shardKeyFrom(undefined, testEnv.COUNTERS);
let made = 0;
/** A domain of its own per test: the metrics shards are shared by every test of the file. */
const freshDomain = () => `sample-${suffix}-${(made += 1)}`;

function keyRules(domain: string, extra: Record<string, unknown> = {}) {
  return {
    domain,
    descriptors: [
      { key: "api_key", rate_limit: { name: "per-key", unit: "minute", requests_per_unit: 3, algorithm: "fixed_window" } },
      { key: "session", rate_limit: { name: "per-session", unit: "minute", requests_per_unit: 1000 } },
      { key: "path", value: "/costly", rate_limit: { name: "costly", unit: "minute", requests_per_unit: 1000 } },
    ],
    routes: [
      { match: { path: "/costly" }, cost: 2, descriptors: [[{ key: "path" }]] },
      { match: { path: "/items" }, descriptors: [[{ key: "api_key", header: "x-api-key" }], [{ key: "session", cookie: "session" }]] },
    ],
    ...extra,
  };
}

describe("GET /__ratelimit/sample at SAMPLE_KEY_RATE 1", () => {
  it("holds every request of a known pattern with its t, cost, decision and limit, sorted by t", async () => {
    const domain = freshDomain();
    const api = sampledGateway(keyRules(domain), { SAMPLE_KEY_RATE: "1" });
    const pattern = ["alpha", "alpha", "beta", "alpha", "alpha", "alpha", "beta"];
    const times: [number, number][] = [];
    for (const key of pattern) {
      const before = Date.now();
      await api.call("/items", { headers: { "x-api-key": `key-${key}-${suffix}`, cookie: `session=s-${key}` } });
      times.push([before, Date.now()]);
    }
    await api.call("/costly");
    const rows = await api.exportSample(`domain=${domain}`);
    expect(rows).toHaveLength(pattern.length + 1);
    expect(rows.map((r) => r.t)).toEqual([...rows.map((r) => r.t)].sort((a, b) => a - b));
    const alpha = await digestValue(`key-alpha-${suffix}`, SHARD);
    const beta = await digestValue(`key-beta-${suffix}`, SHARD);
    let alphaSeen = 0;
    pattern.forEach((key, i) => {
      const row = rows[i];
      expect(row.t).toBeGreaterThanOrEqual(times[i][0]);
      expect(row.t).toBeLessThanOrEqual(times[i][1]);
      if (key === "alpha") alphaSeen += 1;
      const allowed = key === "beta" || alphaSeen <= 3;
      expect(row).toMatchObject({ v: 2, domain, route: "GET /items", cost: 1, decision: allowed ? "allowed" : "refused" });
      expect(row.descriptors).toEqual([
        { entries: [{ key: "api_key", value: key === "alpha" ? alpha : beta }], sampled: true, limit: "per-key", allowed },
        { entries: [{ key: "session", value: expect.stringMatching(/^s~[0-9a-f]{16}$/) }], sampled: true, limit: "per-session", allowed: true },
      ]);
    });
    // A literal and the path are kept raw; the route's cost is the row's.
    expect(rows[pattern.length]).toMatchObject({
      route: "GET /costly",
      cost: 2,
      decision: "allowed",
      descriptors: [{ entries: [{ key: "path", value: "/costly" }], sampled: true, limit: "costly", allowed: true }],
    });
  });

  it("tags a request SHADOW_MODE let through as shadow", async () => {
    const domain = freshDomain();
    const api = sampledGateway(keyRules(domain), { SAMPLE_KEY_RATE: "1", SHADOW_MODE: "true" });
    for (let i = 0; i < 4; i++) await api.call("/items", { headers: { "x-api-key": "shadowed" } });
    const rows = await api.exportSample(`domain=${domain}`);
    expect(rows.map((r) => r.decision)).toEqual(["allowed", "allowed", "allowed", "shadow"]);
    expect(rows[3].descriptors[0]).toMatchObject({ limit: "per-key", allowed: false });
  });
});

describe("whole-key sampling", () => {
  // Break tried: sampleRate returning the floor whatever the count (whole-key sampling at 10 % as before): about 2 of the 19 keys kept, and the shared key all or nothing.
  it("keeps every request of a 19-key deployment and of a key every request shares, at the default SAMPLE_KEY_RATE", async () => {
    const domain = freshDomain();
    const api = sampledGateway(keyRules(domain));
    const clients = Array.from({ length: 19 }, (_, i) => `small-${i}-${suffix}`);
    for (let round = 0; round < 2; round++) for (const key of clients) await api.call("/items", { headers: { "x-api-key": key } });
    for (let i = 0; i < 5; i++) await api.call("/costly");
    const rows = await api.exportSample(`domain=${domain}`);
    expect(rows).toHaveLength(19 * 2 + 5);
    const seen = new Map<string, number>();
    for (const row of rows) for (const d of row.descriptors) seen.set(d.entries[0].value, (seen.get(d.entries[0].value) ?? 0) + 1);
    for (const key of clients) expect(seen.get(await digestValue(key, SHARD)), key).toBe(2);
    expect(seen.get("/costly")).toBe(5);
    expect(rows.every((row) => row.descriptors.every((d) => d.sampled))).toBe(true);
  });

  it("thins as keys grow: every request of a key in the sample, every key under the rate in, a request kept when any of its descriptors is", async () => {
    const domain = freshDomain();
    const rate = 0.3;
    const api = sampledGateway(keyRules(domain), { SAMPLE_KEY_RATE: String(rate) });
    // 150 clients of two keys each: 300 active keys, so the rate falls from 1 to 1/3 as they arrive.
    const clients = Array.from({ length: 150 }, (_, i) => ({ key: `k${i}-${suffix}`, session: `s${i}-${suffix}` }));
    const requests = 2;
    for (let round = 0; round < requests; round++) {
      for (const c of clients) await api.call("/items", { headers: { "x-api-key": c.key, cookie: `session=${c.session}` } });
    }
    const rows = await api.exportSample(`domain=${domain}`);
    const byKey = new Map<string, (typeof rows)[number][]>();
    for (const row of rows) byKey.set(row.descriptors[0].entries[0].value, [...(byKey.get(row.descriptors[0].entries[0].value) ?? []), row]);
    let keysSampled = 0;
    let kept = 0;
    for (const c of clients) {
      const own = byKey.get(await digestValue(c.key, SHARD)) ?? [];
      // All of a client's requests or none: a key keeps its answer while it stays active.
      expect([0, requests], c.key).toContain(own.length);
      if (own.length === 0) continue;
      kept += 1;
      const flags = own.map((row) => row.descriptors.map((d) => d.sampled).join());
      expect(new Set(flags).size, c.key).toBe(1);
      expect(own[0].descriptors.some((d) => d.sampled)).toBe(true);
      if (own[0].descriptors[0].sampled) keysSampled += 1;
      // A key under the rate is in wherever it is seen.
    }
    for (const c of clients) {
      if (keySampled(domain, [{ key: "api_key", value: c.key }], rate, SHARD)) expect(byKey.get(await digestValue(c.key, SHARD))?.length, c.key).toBe(requests);
    }
    // Both kinds of key occur, so the test above judged both.
    expect(keysSampled).toBeGreaterThan(5);
    expect(kept).toBeLessThan(clients.length);
  });
});

describe("the sample's size", () => {
  it("stays within SAMPLE_MAX_ROWS under a key scan, the newest rows kept", async () => {
    const domain = freshDomain();
    const maxRows = 80;
    // Several isolates (each its own gateway), so several metrics shards hold parts.
    const gateways = Array.from({ length: 2 }, () => sampledGateway(keyRules(domain), { SAMPLE_KEY_RATE: "1", SAMPLE_MAX_ROWS: String(maxRows) }));
    const scan = 2_000;
    // In waves of 100 at once: thousands of requests one after the other would outlast the test's time.
    for (let wave = 0; wave < scan; wave += 100) {
      await Promise.all(
        Array.from({ length: 100 }, (_, j) => gateways[(wave + j) % gateways.length].call("/items", { headers: { "x-api-key": `scan-${wave + j}` } })),
      );
    }
    // Every isolate's buffered rows sent (an export sends its own isolate's first).
    for (const g of gateways) await g.exportSample(`domain=${domain}`);
    // What the shards store, not only what the export shows, stays within it.
    const stored = await Promise.all(metricsShardNames().map((name) => testEnv.METRICS.getByName(name).sampleRows(domain, 0, Date.now(), 3_600_000)));
    expect(stored.flat().length).toBeLessThanOrEqual(maxRows);
    // Each shard its share: an isolate's 2,000 / 2 rows came in several sends (one per 500 buffered), each batch kept whole.
    for (const rows of stored) expect(rows.length).toBeLessThanOrEqual(Math.floor(maxRows / METRICS_SHARDS));
    const all = await gateways[0].exportSample(`domain=${domain}`);
    // Each shard an isolate sent to keeps its share, floor(80 / 8) = 10 rows.
    expect(all.length).toBeGreaterThanOrEqual(10);
    expect(all.length).toBeLessThanOrEqual(maxRows);
    // Rows beyond the cap go oldest first: only keys from the scan's last quarter are left.
    const indexOf = new Map<string, number>();
    for (let i = 0; i < scan; i++) indexOf.set(await digestValue(`scan-${i}`, SHARD), i);
    const kept = all.map((r) => indexOf.get(r.descriptors[0].entries[0].value) ?? -1);
    expect(Math.min(...kept)).toBeGreaterThanOrEqual((scan * 3) / 4);
  }, 180_000);
});

describe("secrets", () => {
  it("never exports a raw header, cookie, query, address or token value", async () => {
    const domain = freshDomain();
    const rules = {
      domain,
      descriptors: [
        { key: "api_key", rate_limit: { unit: "minute", requests_per_unit: 100 } },
        { key: "auth", rate_limit: { unit: "minute", requests_per_unit: 100 } },
        { key: "session", rate_limit: { unit: "minute", requests_per_unit: 100 } },
        { key: "token", rate_limit: { unit: "minute", requests_per_unit: 100 } },
        { key: "remote_address", rate_limit: { unit: "minute", requests_per_unit: 100 } },
      ],
      routes: [
        {
          match: {},
          descriptors: [
            [{ key: "api_key", header: "x-api-key" }],
            [{ key: "auth", header: "authorization" }],
            [{ key: "session", cookie: "session" }],
            [{ key: "token", query: "token" }],
            [{ key: "remote_address" }],
          ],
        },
      ],
    };
    const api = sampledGateway(rules, { SAMPLE_KEY_RATE: "1" });
    const secrets = {
      header: "sk_live_HEADERSECRET4242",
      auth: "Bearer AUTHTOKENSECRET9191",
      cookie: "COOKIESECRET7373",
      query: "QUERYSECRET5656",
      address: "203.0.113.77",
    };
    for (let i = 0; i < 2; i++) {
      await api.call(`/anything?token=${secrets.query}`, {
        ip: secrets.address,
        headers: { "x-api-key": secrets.header, authorization: secrets.auth, cookie: `session=${secrets.cookie}` },
      });
    }
    const res = await api.exportText(`domain=${domain}`);
    expect(res.headers.get("content-type")).toBe("application/x-ndjson");
    const text = await bodyText(res);
    expect(text.trimEnd().split("\n")).toHaveLength(2);
    for (const secret of ["HEADERSECRET", "AUTHTOKENSECRET", "COOKIESECRET", "QUERYSECRET", "203.0.113.77", "0.113.77"]) expect(text).not.toContain(secret);
    // The digests a replay would compute for the same values are there.
    for (const value of [secrets.header, secrets.auth, secrets.cookie, secrets.query, secrets.address]) expect(text).toContain(await digestValue(value, SHARD));
    // A path segment no route names is digested too (src/advisor/route-shape.ts): the route matched every path.
    expect(text).toMatch(/"route":"GET \/~[0-9a-f]{16}"/);
    expect(text).not.toContain("anything");
  });
});

describe("the export's query", () => {
  it("filters by since, given as epoch ms or ISO-8601", async () => {
    const domain = freshDomain();
    const api = sampledGateway(keyRules(domain), { SAMPLE_KEY_RATE: "1" });
    for (let i = 0; i < 3; i++) await api.call("/items", { headers: { "x-api-key": `early-${i}` } });
    await scheduler.wait(20);
    const since = Date.now();
    for (let i = 0; i < 4; i++) await api.call("/items", { headers: { "x-api-key": `late-${i}` } });
    const all = await api.exportSample(`domain=${domain}`);
    expect(all).toHaveLength(7);
    const late = await api.exportSample(`domain=${domain}&since=${since}`);
    expect(late).toHaveLength(4);
    expect(late.every((r) => r.t >= since)).toBe(true);
    expect(await api.exportSample(`domain=${domain}&since=${encodeURIComponent(new Date(since).toISOString())}`)).toEqual(late);
    expect(await api.exportSample(`domain=${domain}&since=${Date.now() + 60_000}`)).toEqual([]);
  });

  it("answers 400 naming an unknown or missing domain, or a since that is no time", async () => {
    const domain = freshDomain();
    const api = sampledGateway(keyRules(domain));
    for (const [query, says] of [
      [`domain=nowhere-${suffix}`, "is not in the rules in force"],
      ["", "domain is required"],
      [`domain=${domain}&since=yesterday`, "since must be"],
      [`domain=${domain}&since=12abc`, "since must be"],
      [`domain=${domain}&since=2026-13-45T99:99:99Z`, "since must be"],
    ]) {
      const res = await api.exportText(query);
      expect(res.status, query).toBe(400);
      expect(res.headers.get("content-type")).toBe("application/problem+json");
      expect(((await res.json()) as { detail: string }).detail).toContain(says);
    }
    const anonymous = await api.call(`/__ratelimit/sample?domain=${domain}`);
    expect(anonymous.status).toBe(401);
  });
});

describe("the cost of collecting it", () => {
  it("rides with the metrics sends: no object call of its own", async () => {
    const traffic = async (call: (path: string, init: RequestInit & { ip?: string }) => Promise<Response>, ip: string) => {
      for (let i = 0; i < 12; i++) await call("/items", { ip, headers: { "x-api-key": `cost-${i % 4}` } });
    };
    // The isolate's clock runs a minute ahead after the 6th request, so buffered rows are due for a send.
    const clock = (shiftAfter: () => boolean) => () => Date.now() + (shiftAfter() ? 61_000 : 0);
    const runs = [];
    for (const rate of ["1", "0"]) {
      // A domain per run: the runs' counters start alike.
      const domain = freshDomain();
      const { sends, metrics } = countingMetrics();
      const { addressed, counters } = recordingCounters();
      let requests = 0;
      const api = sampledGateway(keyRules(domain), { SAMPLE_KEY_RATE: rate, METRICS: metrics, COUNTERS: counters }, { now: clock(() => requests >= 6) });
      const call = async (path: string, init: RequestInit & { ip?: string }) => {
        requests += 1;
        return api.call(path, init);
      };
      await traffic(call, uniqueIp());
      runs.push({
        sends: sends.length,
        withRows: sends.filter((s) => s.sample !== undefined).flatMap((s) => s.sample?.rows ?? []).length,
        objects: addressed.length,
      });
    }
    const [sampled, unsampled] = runs;
    expect(sampled.sends).toBe(unsampled.sends);
    expect(sampled.objects).toBe(unsampled.objects);
    // METRICS_FLUSH_MS is 0 in the tests: one send per request, and the rows rode with them.
    expect(sampled.sends).toBe(12);
    expect(sampled.withRows).toBeGreaterThanOrEqual(6);
    expect(unsampled.withRows).toBe(0);
  });
});
