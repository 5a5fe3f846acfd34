#!/usr/bin/env node
// `npm run test:restart`: durability across a hard kill (docs/reliability.md, "Durability").
// Starts `wrangler dev` with state persisted to a fresh directory, uploads
// rules through the admin API, then:
// - spends part of a per-minute and a per-day quota, waits past the time a
//   region's copy reports its hits (`wrangler dev` sets request.cf, so global
//   keys warm in the region are relayed) and past `persist_ms`, and checks
//   after the restart that the remaining quota is exactly as it was;
// - sends concurrent traffic to a checkpointed and a strict counter and kills
//   mid-traffic: the checkpointed one may lose at most the hits accepted in the
//   last RELAY_REPORT_MS + `persist_ms` before the kill (docs/reliability.md,
//   "Durability"), the strict one none.
// Kills are SIGKILL to wrangler and the workerd it started. Only 127.0.0.1 is
// contacted. Exits 1 on any mismatch.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const PORT = Number(process.env.RESTART_TEST_PORT ?? 8795);
const BASE = `http://127.0.0.1:${PORT}`;
const TOKEN = "restart-test-token-0123456789abcdef";
const persist = mkdtempSync(join(tmpdir(), "floodgate-restart-"));
const auth = { authorization: `Bearer ${TOKEN}` };

const PERSIST_MS = 1000;
// How late a region's copy reports hits it allowed (docs/placement.md, "When a region's hits are charged"): at each
// renewal, which comes at the latest when less than RELAY_RENEW_MS (4 s) of its RELAY_LEASE_TTL_MS (10 s) lease is
// left, on the RELAY_SYNC_MS (1 s) grid (src/durable/counters/leases/relay-lease.ts), or RELAY_IDLE_MS (5 s) after
// the key's last hit.
const RELAY_REPORT_MS = 10_000 - 4_000 + 1_000;
const RELAY_IDLE_REPORT_MS = 5_000 + 2 * 1_000;
// Far above what the traffic below can spend, so every hit is accepted and counted.
const CRASH_LIMIT = 1_000_000;
// Longer than RELAY_REPORT_MS + PERSIST_MS, so the loss bound below covers only part of the traffic.
const CRASH_TRAFFIC_MS = 12_000;
const CRASH_CONCURRENCY = 8;

// Sliding logs are exact and have no window boundary to cross mid-test.
const rules = {
  domain: "restart",
  descriptors: [
    {
      key: "quota",
      value: "minute",
      descriptors: [{ key: "remote_address", rate_limit: { unit: "minute", requests_per_unit: 10, algorithm: "sliding_window_log" } }],
    },
    {
      key: "quota",
      value: "day",
      descriptors: [{ key: "remote_address", rate_limit: { unit: "day", requests_per_unit: 100, algorithm: "sliding_window_log" } }],
    },
    {
      key: "quota",
      value: "checkpoint",
      descriptors: [{ key: "remote_address", rate_limit: { unit: "day", requests_per_unit: CRASH_LIMIT, algorithm: "fixed_window", persist_ms: PERSIST_MS } }],
    },
    {
      key: "quota",
      value: "strict",
      descriptors: [{ key: "remote_address", rate_limit: { unit: "day", requests_per_unit: CRASH_LIMIT, algorithm: "fixed_window", durability: "strict" } }],
    },
  ],
  routes: [
    { match: { path: "/checkpoint" }, descriptors: [[{ key: "quota", value: "checkpoint" }, { key: "remote_address" }]] },
    { match: { path: "/strict" }, descriptors: [[{ key: "quota", value: "strict" }, { key: "remote_address" }]] },
    { match: { path: "/minute" }, descriptors: [[{ key: "quota", value: "minute" }, { key: "remote_address" }]] },
    { match: { path: "/day" }, descriptors: [[{ key: "quota", value: "day" }, { key: "remote_address" }]] },
  ],
};

function startDev() {
  const child = spawn(
    join("node_modules", ".bin", "wrangler"),
    ["dev", "--ip", "127.0.0.1", "--port", String(PORT), "--persist-to", persist, "--var", `ADMIN_TOKEN:${TOKEN}`, "--show-interactive-dev-session=false"],
    { detached: true, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, WRANGLER_SEND_METRICS: "false" } },
  );
  let log = "";
  child.stdout.on("data", (d) => (log += d));
  child.stderr.on("data", (d) => (log += d));
  child.log = () => log;
  return child;
}

async function waitHealthy(child, timeoutMs = 60_000) {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited early:\n${child.log()}`);
    try {
      const res = await fetch(`${BASE}/__ratelimit/healthcheck`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`wrangler dev did not become healthy in ${timeoutMs} ms:\n${child.log()}`);
}

function killHard(child) {
  // The whole process group: wrangler and the workerd it started.
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    // already gone
  }
  return new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once("exit", resolve)));
}

/**
 * Keep CRASH_CONCURRENCY requests in flight on `path` until the server dies;
 * record when each allowed answer arrived.
 */
async function traffic(path) {
  const accepted = [];
  const worker = async () => {
    for (;;) {
      try {
        const res = await fetch(`${BASE}${path}`, { headers: { "cf-connecting-ip": "192.0.2.78" } });
        await res.arrayBuffer();
        if (res.status === 200) accepted.push(Date.now());
      } catch {
        return; // the server was killed
      }
    }
  };
  await Promise.all(Array.from({ length: CRASH_CONCURRENCY }, worker));
  return accepted;
}

const remaining = async (path, ip = "192.0.2.77") => {
  const res = await fetch(`${BASE}${path}`, { headers: { "cf-connecting-ip": ip } });
  await res.arrayBuffer();
  return { status: res.status, remaining: Number(res.headers.get("x-ratelimit-remaining")) };
};

const failures = [];
const check = (what, actual, expected) => {
  const ok = JSON.stringify(actual) === JSON.stringify(expected);
  console.log(`${ok ? "ok  " : "FAIL"} ${what}: ${JSON.stringify(actual)}${ok ? "" : ` (expected ${JSON.stringify(expected)})`}`);
  if (!ok) failures.push(what);
};

let dev = startDev();
try {
  await waitHealthy(dev);
  const put = await fetch(`${BASE}/__ratelimit/rules`, { method: "PUT", headers: auth, body: JSON.stringify(rules) });
  const { version } = await put.json();
  check("rules upload accepted", put.status, 200);

  for (let i = 0; i < 3; i++) await remaining("/minute");
  for (let i = 0; i < 6; i++) await remaining("/day");
  const beforeMinute = await remaining("/minute");
  const beforeDay = await remaining("/day");
  check("per-minute remaining before the kill", beforeMinute.remaining, 6);
  check("per-day remaining before the kill", beforeDay.remaining, 93);
  // Traffic stopped: a region's copy reports the key's hits once it is idle, and the checkpoint is due within
  // persist_ms after, whether or not another request comes.
  await new Promise((r) => setTimeout(r, RELAY_IDLE_REPORT_MS + PERSIST_MS + 500));

  // Mid-traffic kill: both counters busy when the process dies.
  const dayAtStart = new Date().toISOString().slice(0, 10);
  const checkpointed = traffic("/checkpoint");
  const strict = traffic("/strict");
  await new Promise((r) => setTimeout(r, CRASH_TRAFFIC_MS));
  const killedAt = Date.now();
  await killHard(dev);
  const [checkpointHits, strictHits] = await Promise.all([checkpointed, strict]);
  dev = startDev();
  await waitHealthy(dev);
  console.log(`     restarted after SIGKILL in ${Date.now() - killedAt} ms`);

  const rulesAfter = await (await fetch(`${BASE}/__ratelimit/rules`, { headers: auth })).json();
  check("uploaded rules after restart (version, source)", [rulesAfter.version, rulesAfter.source], [version, "stored"]);
  check("per-minute remaining after restart (one more hit)", (await remaining("/minute")).remaining, 5);
  check("per-day remaining after restart (one more hit)", (await remaining("/day")).remaining, 92);

  if (new Date().toISOString().slice(0, 10) !== dayAtStart) throw new Error("the UTC day changed mid-test (fixed daily windows reset): run it again");
  // Counted by the server after the restart: one more hit, then what it says is left.
  const counted = async (path) => CRASH_LIMIT - (await remaining(path, "192.0.2.78")).remaining - 1;
  const lastWindow = (hits) => hits.filter((at) => at >= killedAt - RELAY_REPORT_MS - PERSIST_MS).length;
  const checkpointLoss = checkpointHits.length - (await counted("/checkpoint"));
  const strictLoss = strictHits.length - (await counted("/strict"));
  console.log(
    `     checkpointed: ${checkpointHits.length} hits allowed, ${checkpointLoss} lost, ${lastWindow(checkpointHits)} allowed in the last ${RELAY_REPORT_MS + PERSIST_MS} ms (the bound)`,
  );
  console.log(`     strict: ${strictHits.length} hits allowed, ${strictLoss} lost`);
  check("traffic reached both counters before the kill", checkpointHits.length > 0 && strictHits.length > 0, true);
  // A hit in flight at the kill may be counted without its answer arriving, so a loss below zero is fine.
  check("checkpointed loss within the hits of the last RELAY_REPORT_MS + persist_ms", checkpointLoss <= lastWindow(checkpointHits), true);
  check("the bound covers only part of the traffic", lastWindow(checkpointHits) < checkpointHits.length, true);
  check("strict loss", Math.max(0, strictLoss), 0);
} catch (error) {
  failures.push(String(error));
  console.error(error);
} finally {
  await killHard(dev);
  rmSync(persist, { recursive: true, force: true });
}

console.log(failures.length === 0 ? "restart test: counters and rules survived SIGKILL" : `restart test FAILED: ${failures.join("; ")}`);
process.exit(failures.length === 0 ? 0 : 1);
