// The rules:replay CLI, run as users run it (plain Node, node:test):
//   ./node_modules/.bin/node --test test/cli/rules-replay.test.mjs
// The sample file is written here in the sample's format (docs/advisor.md, "Sample"),
// client-chosen values digested with node:crypto's HMAC under the key docs/advisor.md
// derives from a deployment's SHARD_KEY, apart from the code under test.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHmac } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { halfSipHash, shardKeyFrom } from "../../src/stored/shard-hash.ts";
import { repo } from "./wrangler-toml.mjs";

const dir = mkdtempSync(join(tmpdir(), "rules-replay-"));

/** The deployment's SHARD_KEY the sample below was digested under. */
const SECRET = "rules-replay-test-shard-key-0123456789";

function replay(args, env = {}) {
  const { SHARD_KEY: _, ...inherited } = process.env;
  const run = spawnSync(process.execPath, ["--disable-warning=ExperimentalWarning", "tools/rules-replay.ts", ...args], {
    cwd: repo,
    encoding: "utf8",
    env: { ...inherited, ...env },
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

function file(name, content) {
  const path = join(dir, name);
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content, null, 2));
  return path;
}

function digest(value, secret = SECRET) {
  const shardKey = shardKeyFrom(secret, undefined);
  const key = Buffer.alloc(16);
  for (let i = 0; i < 4; i++) key.writeUInt32LE(halfSipHash(shardKey, `floodgate/sample-digest/${i}`), i * 4);
  const prefix = value.slice(0, Math.min(4, Math.floor(value.length / 4)));
  return `${prefix}~${createHmac("sha256", key).update(value, "utf8").digest("hex").slice(0, 16)}`;
}

const rules = (perSecond) => ({
  domain: "api",
  descriptors: [{ key: "api_key", rate_limit: { name: "per-key", unit: "second", requests_per_unit: perSecond, algorithm: "fixed_window" } }],
});

// "steady-key": 3 requests a second for 4 s; "burst-key": 10 within 100 ms; both sampled. Live: 5 a second.
const T0 = 1_764_000_000_000;
const arrivals = [];
for (let s = 0; s < 4; s++) for (let i = 0; i < 3; i++) arrivals.push({ t: T0 + s * 1000 + i * 200, key: "steady-key" });
for (let i = 0; i < 10; i++) arrivals.push({ t: T0 + 5000 + i * 10, key: "burst-key" });
arrivals.sort((a, b) => a.t - b.t);
const perWindow = new Map();
const lines = arrivals.map(({ t, key }) => {
  const id = `${key}@${Math.floor(t / 1000)}`;
  const allowed = (perWindow.get(id) ?? 0) < 5;
  if (allowed) perWindow.set(id, (perWindow.get(id) ?? 0) + 1);
  const descriptor = { entries: [{ key: "api_key", value: digest(key) }], sampled: true, limit: "per-key", allowed };
  return JSON.stringify({ v: 2, t, domain: "api", route: "GET /v1/items", cost: 1, decision: allowed ? "allowed" : "refused", descriptors: [descriptor] });
});
const sample = file("sample.ndjson", `${lines.join("\n")}\n`);
const inForce = file("in-force.json", rules(5));

test("--json: per limit, the refusals of the proposed rules beside the rules in force", () => {
  const proposed = file("tight.json", rules(2));
  const { code, stdout, stderr } = replay([proposed, "--sample", sample, "--current", inForce, "--json"]);
  assert.equal(code, 0, stderr);
  const report = JSON.parse(stdout);
  assert.equal(report.replayed, 22);
  // The rules in force reproduce every live decision of the sample.
  assert.deepEqual(report.reproduced, { matching: 22, of: 22 });
  const [limit] = report.limits;
  assert.equal(limit.name, "per-key");
  // 2 a second: steady-key loses 1 of 3 each second (4), burst-key 8 of 10.
  assert.equal(limit.refusals, 12);
  assert.equal(limit.keys_refused, 2);
  assert.deepEqual(limit.in_force, { requests: 22, refusals: 5, refused_pct: 22.73, keys_refused: 1 });
  assert.equal(limit.refusals_change, 7);
  assert.equal(report.newly_refused, 7);
  assert.equal(limit.top_keys[0].key, `api_key=${digest("burst-key")}`);
  assert.equal(limit.advice.legitimate_refused, 1);
  assert.equal(limit.advice.abusive_refused, 1);
  assert.deepEqual(limit.advice.suggested_limit, { percentile: 99, value: 10, keys: 2 });
  assert.equal(limit.advice.never_fires, false);
});

test("the table: one block per limit, with the suggestion and its percentile", () => {
  const proposed = file("loose.json", rules(20));
  const { code, stdout, stderr } = replay([proposed, "--sample", sample, "--current", inForce]);
  assert.equal(code, 0, stderr);
  assert.match(stdout, /^replayed 22 sampled descriptors/);
  assert.match(stdout, /rules in force reproduce 22 of 22 live decisions/);
  assert.match(stdout, /api \/ per-key {2}fixed_window 20\/1s/);
  assert.match(stdout, /requests 22 {2}refused 0 \(0%\), 0 keys {2}in force 5 \(22\.73%\), 1 keys, change -5/);
  assert.match(stdout, /advice: NEVER FIRES; 0% of 2 active keys hit it/);
  assert.match(stdout, /suggested limit 10\/1s \(p99 of per-key peak per window, 2 keys\)/);
});

test("invalid proposed rules: rules:check's errors, exit 1", () => {
  const bad = file("bad.json", { domain: "api", descriptors: [{ key: "api_key", rate_limit: { unit: "eon", requests_per_unit: 1 } }] });
  const { code, stdout, stderr } = replay([bad, "--sample", sample, "--current", inForce]);
  assert.equal(code, 1);
  assert.equal(stdout, "");
  assert.equal(
    stderr,
    `$.descriptors[0].rate_limit.unit: unknown unit "eon" (expected one of: second, minute, hour, day, week, month, year)\n${bad}: 1 error, rules rejected\n`,
  );
  const syntax = file("syntax.json", '{"domain": }');
  const broken = replay([syntax, "--sample", sample]);
  assert.equal(broken.code, 1);
  assert.equal(broken.stderr, `${syntax}:1:12: invalid JSON: expected a value, found "}"\n`);
});

test("missing arguments: the usage, exit 2", () => {
  for (const args of [[], [inForce], [inForce, "--url", "http://localhost:1"], [inForce, "--sample"]]) {
    const { code, stderr } = replay(args);
    assert.equal(code, 2, args.join(" "));
    assert.match(stderr, /^rules:replay: .+\nusage: npm run rules:replay -- PROPOSED\.json/);
  }
});

test("a bad sample line is named", () => {
  const bad = file("bad.ndjson", `${lines[0]}\n{"v": 3}\n`);
  const { code, stderr } = replay([inForce, "--sample", bad, "--current", inForce]);
  assert.equal(code, 1);
  assert.equal(stderr, `rules:replay: ${bad}:2: unknown format version 3 (expected "v": 2, or 1 of an older deploy)\n`);
});

// A VIP key named by the rules: its sampled digest is found only with the deployment's key.
const vipRules = (perSecond) => ({
  domain: "api",
  descriptors: [
    { key: "api_key", rate_limit: { name: "per-key", unit: "second", requests_per_unit: 1, algorithm: "fixed_window" } },
    { key: "api_key", value: "vip-key", rate_limit: { name: "vip", unit: "second", requests_per_unit: perSecond, algorithm: "fixed_window" } },
  ],
});
const vipLines = [0, 100, 200].map((at) =>
  JSON.stringify({
    v: 2,
    t: T0 + at,
    domain: "api",
    route: "GET /v1/items",
    cost: 1,
    decision: "allowed",
    descriptors: [{ entries: [{ key: "api_key", value: digest("vip-key") }], sampled: true, limit: "vip", allowed: true }],
  }),
);
const vipSample = file("vip.ndjson", `${vipLines.join("\n")}\n`);
const vipInForce = file("vip-in-force.json", vipRules(5));

// Break tried: shardKeyFor returning undefined whatever the flag and environment: the vip limit is never found (3 of 3 reproduced → 1 of 3).
// Break tried: shardKeyFor never failing without a key: exit 0 with a replay that misses the vip limit.
test("the sample's digests are keyed: --shard-key or SHARD_KEY finds the rules' exact values; without it, a clear error", () => {
  const proposed = file("vip-proposed.json", vipRules(2));
  for (const [args, env] of [
    [["--shard-key", SECRET], {}],
    [[], { SHARD_KEY: SECRET }],
  ]) {
    const { code, stdout, stderr } = replay([proposed, "--sample", vipSample, "--current", vipInForce, "--json", ...args], env);
    assert.equal(code, 0, stderr);
    const report = JSON.parse(stdout);
    assert.deepEqual(report.reproduced, { matching: 3, of: 3 });
    assert.deepEqual(
      report.limits.map((l) => [l.name, l.requests, l.refusals]),
      [
        ["vip", 3, 1],
        ["per-key", 0, 0],
      ],
    );
  }
  const missing = replay([proposed, "--sample", vipSample, "--current", vipInForce]);
  assert.equal(missing.code, 1);
  assert.match(
    missing.stderr,
    /^rules:replay: the sample holds digests of "api\/api_key" and the rules name exact values of it: .*--shard-key KEY or the environment's SHARD_KEY/,
  );
  // Another deployment's key finds nothing: the per-key limit decides, and the rules in force no longer reproduce the live decisions.
  const wrong = replay([proposed, "--sample", vipSample, "--current", vipInForce, "--json", "--shard-key", "another-deployment"]);
  assert.equal(wrong.code, 0, wrong.stderr);
  assert.deepEqual(JSON.parse(wrong.stdout).reproduced, { matching: 1, of: 3 });
});

test("--url: a proposed domain not in force there is named, exit 1 (no sample to replay)", async () => {
  const { createServer } = await import("node:http");
  const { spawn } = await import("node:child_process");
  // A deployment whose rules in force define only "api"; its sample export refuses other domains, as the real one does.
  const server = createServer((req, res) => {
    if (req.url === "/__ratelimit/rules") return res.end(JSON.stringify({ rules: rules(5) }));
    res.writeHead(req.url?.includes("domain=api") ? 200 : 400).end(req.url?.includes("domain=api") ? "" : '{"detail":"domain is not in the rules in force"}');
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${server.address().port}`;
  try {
    const proposed = file("other-domain.json", [rules(5), { ...rules(2), domain: "other" }]);
    const child = spawn(process.execPath, ["--disable-warning=ExperimentalWarning", "tools/rules-replay.ts", proposed, "--url", url, "--token", "t"], {
      cwd: repo,
    });
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.stdout.resume();
    const code = await new Promise((resolve) => child.on("close", resolve));
    assert.equal(code, 1, stderr);
    assert.equal(stderr, `rules:replay: ${url}: the proposed rules name domains not in force there, "other": no sample to replay (in force: "api")\n`);
  } finally {
    server.close();
  }
});
