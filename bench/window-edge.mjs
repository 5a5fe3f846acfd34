#!/usr/bin/env node
/**
 * The window-edge trace through `wrangler dev` (docs/placement.md, "Hits
 * charged in their window"): `wrangler dev` sets `request.cf`, so every
 * global limit goes through the regional relay, as in production. A fixed
 * window of 5 per 10 s (`--algorithm` for another), 19 keys, ~400 requests
 * each sent at least 200 ms from every window edge over six windows; then
 * the live refusals against an exact model of the same sends (the
 * algorithm itself, each key's sends in order at their instants), and
 * `rules:replay` of the gateway's own sample against the rules in force
 * (its `reproduced` figure: the replay's decisions matching the live ones).
 * Exits 1 when they differ. Hold the machine's bench lock on a shared
 * machine: `flock /tmp/floodgate-heavy.lock node bench/window-edge.mjs`.
 * The clock is real here (the driven-clock version is
 * test/durable/window-edge-trace.test.ts), so requests keep 200 ms from the edges.
 * That settles a fixed window; the other algorithms decide at instants a
 * real clock cannot hit exactly (a hit 10 s after one on the same 100 ms
 * grid, a bucket refilling every 2 s), so the model runs each key at the
 * instants each send left and at those its answer came back (the gateway
 * decided between them): a key whose model decisions differ between the
 * two is within the clock's reach of a decision edge, printed and left out
 * of the comparison; every other key's live decisions must equal the model's.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { getAlgorithm } from "../src/algorithms/index.ts";
import { seededRandom } from "./lib/random.mjs";

const { values: options } = parseArgs({ options: { algorithm: { type: "string", default: "fixed_window" }, port: { type: "string", default: "8797" } } });
const PORT = Number(options.port);
const BASE = `http://127.0.0.1:${PORT}`;
const TOKEN = "window-edge-trace-token-0123456789abcdef";
const LIMIT = 5;
const WINDOW_MS = 10_000;
const KEYS = 19;
const WINDOWS = 6;
const EDGE_MS = 200;

const rules = {
  domain: "edge-trace",
  descriptors: [{ key: "api_key", rate_limit: { name: "edge", unit: "second", unit_multiplier: 10, requests_per_unit: LIMIT, algorithm: options.algorithm } }],
  routes: [{ match: { path: "/*" }, descriptors: [[{ key: "api_key", header: "x-api-key" }]] }],
};

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const work = mkdtempSync(join(tmpdir(), "floodgate-window-edge-"));
const rulesFile = join(work, "rules.json");
writeFileSync(rulesFile, JSON.stringify(rules));

const vars = [`ADMIN_TOKEN:${TOKEN}`, "SAMPLE_KEY_RATE:1", "METRICS_FLUSH_MS:1000"].flatMap((v) => ["--var", v]);
const child = spawn(
  join("node_modules", ".bin", "wrangler"),
  ["dev", "--ip", "127.0.0.1", "--port", String(PORT), "--persist-to", join(work, "state"), ...vars, "--show-interactive-dev-session=false"],
  { detached: true, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, WRANGLER_SEND_METRICS: "false" } },
);
let log = "";
child.stdout.on("data", (d) => (log += d));
child.stderr.on("data", (d) => (log += d));

let failed = true;
try {
  for (let i = 0; ; i++) {
    if (i > 240) throw new Error(`wrangler dev did not answer:\n${log}`);
    if (child.exitCode !== null) throw new Error(`wrangler dev exited:\n${log}`);
    if (
      await fetch(`${BASE}/__ratelimit/healthcheck`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    await sleep(250);
  }
  const put = await fetch(`${BASE}/__ratelimit/rules`, {
    method: "PUT",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify(rules),
  });
  if (!put.ok) throw new Error(`PUT /__ratelimit/rules: ${put.status} ${await put.text()}`);
  await sleep(2_000);

  // The trace: per key ~21 sends in random windows, each at a 100 ms step at least EDGE_MS from both edges.
  const random = seededRandom(20261201);
  const sends = [];
  // One run's names, made once: a name read from the clock per send split a key in two when a millisecond passed.
  const run = Date.now().toString(36);
  for (let k = 0; k < KEYS; k++)
    for (let i = 0; i < 21; i++) {
      const offset = EDGE_MS + 100 * Math.floor((random() * (WINDOW_MS - 2 * EDGE_MS)) / 100);
      sends.push({ at: Math.floor(random() * WINDOWS) * WINDOW_MS + offset, key: `edge-${run}-${k}` });
    }
  sends.sort((a, b) => a.at - b.at);
  // Start at the next window edge (the gateway's windows are aligned to the epoch).
  const start = (Math.floor(Date.now() / WINDOW_MS) + 1) * WINDOW_MS;
  await sleep(start - Date.now());
  const late = [];
  await Promise.all(
    sends.map(async (send) => {
      await sleep(start + send.at - Date.now());
      send.sentAt = Date.now();
      const lateBy = send.sentAt - (start + send.at);
      if (lateBy > EDGE_MS / 2) late.push(lateBy);
      const res = await fetch(`${BASE}/`, { headers: { "x-api-key": send.key } });
      await res.arrayBuffer();
      send.doneAt = Date.now();
      send.status = res.status;
    }),
  );
  // The exact model: each key's sends in order at their instants (when each left, and when its answer came back).
  const algorithm = getAlgorithm(options.algorithm);
  const spec = { limit: LIMIT, windowMs: WINDOW_MS, burst: LIMIT };
  const modelOf = (list, instant) => {
    let state;
    return list.map((send, i) => {
      const step = algorithm.decide(state, spec, instant(send, i), 1);
      if (step.decision.allowed) state = step.state;
      return step.decision.allowed;
    });
  };
  const byKey = Map.groupBy(sends, (s) => s.key);
  const borderline = new Set();
  for (const [key, list] of byKey) {
    const model = modelOf(list, (s) => s.sentAt);
    for (const [i, s] of list.entries()) s.model = model[i];
    // Each send moved alone to its answer's instant, then all of them: any change puts the key within the clock's reach of an edge.
    const variants = [modelOf(list, (s) => s.doneAt), ...list.map((_, j) => modelOf(list, (s, i) => (i === j ? s.doneAt : s.sentAt)))];
    if (variants.some((v) => v.some((allowed, i) => allowed !== model[i]))) borderline.add(key);
  }
  const modelRefused = sends.filter((s) => !s.model).length;
  const liveRefused = sends.filter((s) => s.status === 429).length;
  const compared = sends.filter((s) => !borderline.has(s.key));
  const differ = compared.filter((s) => (s.status === 429) === s.model).length;
  const other = sends.filter((s) => s.status !== 200 && s.status !== 429).length;
  // The sample reaches the metrics shard with the isolate's next sends.
  await sleep(8_000);
  const replay = spawnSync(
    process.execPath,
    ["--disable-warning=ExperimentalWarning", "tools/rules-replay.ts", rulesFile, "--url", BASE, "--token", TOKEN, "--json"],
    {
      encoding: "utf8",
    },
  );
  const report = JSON.parse(replay.stdout || "{}");
  const replayRefused = report.limits?.[0]?.refusals;
  console.log(
    `window-edge trace (${options.algorithm}, ${LIMIT} per ${WINDOW_MS / 1000} s, ${KEYS} keys, ${sends.length} requests at least ${EDGE_MS} ms from every edge) through wrangler dev:`,
  );
  console.log(
    `  refused live ${liveRefused}, by the exact model ${modelRefused}; other statuses ${other}; sends more than ${EDGE_MS / 2} ms late: ${late.length}`,
  );
  console.log(
    `  keys within the clock's reach of a decision edge (left out): ${borderline.size} of ${byKey.size}; of the other keys' ${compared.length} requests, ${differ} decided otherwise than the model`,
  );
  console.log(
    `  rules:replay of the gateway's sample: ${report.replayed} replayed, ${replayRefused} refused, reproducing ${report.reproduced?.matching} of ${report.reproduced?.of} live decisions`,
  );
  // The replay decides at the sample's instants (the gateway's, after each decision): on a key within reach of an edge it may differ.
  const borderlineSends = sends.length - compared.length;
  const replayDiffers = (report.reproduced?.of ?? 0) - (report.reproduced?.matching ?? 0);
  failed =
    differ > 0 ||
    other > 0 ||
    report.reproduced?.of !== sends.length ||
    replayDiffers > borderlineSends ||
    (borderline.size === 0 && (liveRefused !== modelRefused || replayRefused !== modelRefused || replayDiffers > 0));
  console.log(failed ? "  FAIL: they differ" : "  pass: live, model and replay agree");
} catch (error) {
  console.error(error);
} finally {
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    // already gone
  }
  rmSync(work, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
