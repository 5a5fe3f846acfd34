#!/usr/bin/env node
// `npm run test:restart`: durability across a hard kill (SPEC section 7).
// Starts `wrangler dev` with state persisted to a fresh directory, uploads
// rules through the admin API, spends part of a per-minute and a per-day
// quota, kills wrangler and workerd with SIGKILL, starts them again on the
// same state and checks that the remaining quota and the uploaded rules are
// exactly as they were. Only 127.0.0.1 is contacted. Exits 1 on any mismatch.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const PORT = Number(process.env.RESTART_TEST_PORT ?? 8795);
const BASE = `http://127.0.0.1:${PORT}`;
const TOKEN = "restart-test-token";
const persist = mkdtempSync(join(tmpdir(), "floodgate-restart-"));
const auth = { authorization: `Bearer ${TOKEN}` };

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
  ],
  routes: [
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

const remaining = async (path) => {
  const res = await fetch(`${BASE}${path}`, { headers: { "cf-connecting-ip": "192.0.2.77" } });
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

  const killedAt = Date.now();
  await killHard(dev);
  dev = startDev();
  await waitHealthy(dev);
  console.log(`     restarted after SIGKILL in ${Date.now() - killedAt} ms`);

  const rulesAfter = await (await fetch(`${BASE}/__ratelimit/rules`, { headers: auth })).json();
  check("uploaded rules after restart (version, source)", [rulesAfter.version, rulesAfter.source], [version, "stored"]);
  check("per-minute remaining after restart (one more hit)", (await remaining("/minute")).remaining, 5);
  check("per-day remaining after restart (one more hit)", (await remaining("/day")).remaining, 92);
} catch (error) {
  failures.push(String(error));
  console.error(error);
} finally {
  await killHard(dev);
  rmSync(persist, { recursive: true, force: true });
}

console.log(failures.length === 0 ? "restart test: counters and rules survived SIGKILL" : `restart test FAILED: ${failures.join("; ")}`);
process.exit(failures.length === 0 ? 0 : 1);
