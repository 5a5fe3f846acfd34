#!/usr/bin/env node
// @ts-nocheck
/**
 * `npm run soak [-- --seconds N]`: a mixed workload against the built worker
 * on workerd (the bench harness, no `wrangler dev`), from this separate
 * process, to 127.0.0.1 only, bounded in time and in requests. Reports
 * errors (every answer must be 200 or 429), whether every key stayed within
 * its limit, and workerd's memory at the start, during, at the end of the
 * load and after idle counters were swept, and the runtime warnings in
 * workerd's log (bench/lib/warnings.mjs: promises settled from another
 * request's context, uncaught exceptions, workerd's own warnings and
 * errors), grouped with their counts. Exits 1 on any error, overshoot,
 * cross-request promise, uncaught exception or workerd error (workerd's
 * own warnings are printed only).
 *
 *   npm run soak                      60 s (the CI-friendly default)
 *   npm run soak -- --seconds 3600    an hour
 *   options: --seconds S  --concurrency C  --max-requests N
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildWorkers } from "./lib/build.mjs";
import { warningCounts, warningLines } from "./lib/warnings.mjs";
import { startWorkerd, writeConfig } from "./lib/workerd.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
process.chdir(root);
process.env.WRANGLER_SEND_METRICS = "false";

const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const at = argv.indexOf(`--${name}`);
  return at >= 0 && at + 1 < argv.length ? Number(argv[at + 1]) : fallback;
};
const seconds = option("seconds", 60);
const concurrency = option("concurrency", 16);
const maxRequests = option("max-requests", 5_000_000);
// Idle counters are swept every 10 s; wait for two sweeps before the last reading.
const IDLE_SECONDS = 25;

const rules = JSON.parse(readFileSync("bench/rules/soak.json", "utf8"));
const limitOf = (path) => rules.descriptors.find((d) => d.value === path).descriptors[0].rate_limit.requests_per_unit;

/** The workload: path, weight, how keys are chosen, and the check on allowed counts per key. */
const MIX = [
  { path: "/soak/strong", weight: 40, key: (i) => `strong-${i % 200}`, exact: true },
  { path: "/soak/hot", weight: 15, key: () => "hot", exact: true },
  { path: "/soak/scan", weight: 25, key: (i) => `scan-${i}-${Math.random().toString(36).slice(2)}`, exact: true },
  { path: "/soak/precount", weight: 15, key: (i) => `pre-${i % 20}`, exact: true },
  { path: "/soak/blocked", weight: 5, key: () => "blocked", exact: true },
];
const totalWeight = MIX.reduce((sum, m) => sum + m.weight, 0);
const pick = (i) => {
  let r = (i * 7919) % totalWeight;
  for (const m of MIX) if ((r -= m.weight) < 0) return m;
  return MIX[0];
};

function rssKiB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
}

const work = join(root, "bench", ".work", "soak");
console.log(`[soak] building the worker (bench/workers/soak-entry.ts) …`);
const built = await buildWorkers(root, join(work, "build"), [{ name: "floodgate", config: "wrangler.toml", entry: "bench/workers/soak-entry.ts" }]);
const { path: configPath, ports } = await writeConfig(join(work, "build"), { floodgate: { worker: built.floodgate } }, join(work, `storage-${Date.now()}`));
const logFile = join(work, "workerd.log");
const server = await startWorkerd(configPath, ports, logFile);
const base = `http://127.0.0.1:${ports.floodgate}`;

const statuses = new Map();
const allowedPerKey = new Map();
const memory = [{ at: 0, kib: rssKiB(server.pid) }];
let sent = 0;
let failures = 0;
const started = Date.now();
const deadline = started + seconds * 1000;
const sampler = setInterval(() => memory.push({ at: Math.round((Date.now() - started) / 1000), kib: rssKiB(server.pid) }), 5_000);

async function worker() {
  while (Date.now() < deadline && sent < maxRequests) {
    const i = sent++;
    const mix = pick(i);
    const key = mix.key(i);
    try {
      const res = await fetch(`${base}${mix.path}`, { headers: { "x-api-key": key } });
      await res.arrayBuffer();
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      if (res.status === 200) {
        const id = `${mix.path} ${key}`;
        allowedPerKey.set(id, (allowedPerKey.get(id) ?? 0) + 1);
      }
    } catch {
      failures += 1;
    }
  }
}

console.log(`[soak] ${seconds} s, ${concurrency} concurrent, at most ${maxRequests} requests, to ${base}`);
try {
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (Date.now() - started) / 1000;
  memory.push({ at: Math.round(elapsed), kib: rssKiB(server.pid) });
  clearInterval(sampler);
  const endOfLoad = memory[memory.length - 1].kib;
  await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
  const afterIdle = rssKiB(server.pid);

  const over = [];
  for (const m of MIX) {
    const limit = limitOf(m.path);
    let worst = 0;
    for (const [id, count] of allowedPerKey) if (id.startsWith(`${m.path} `)) worst = Math.max(worst, count);
    // Every soak window is longer than the run except the scan's 1 s, whose keys are each used once.
    if (worst > limit) over.push(`${m.path}: a key got ${worst} allowed, limit ${limit}`);
    console.log(`[soak] ${m.path.padEnd(15)} limit ${String(limit).padStart(4)}  most allowed for one key: ${worst}`);
  }
  const total = [...statuses.values()].reduce((a, b) => a + b, 0) + failures;
  const bad = total - (statuses.get(200) ?? 0) - (statuses.get(429) ?? 0);
  const peak = Math.max(...memory.map((m) => m.kib));
  const half = memory.filter((m) => m.at >= elapsed / 2);
  console.log(
    `[soak] requests ${total} in ${elapsed.toFixed(1)} s (${(total / elapsed).toFixed(0)} req/s): ${JSON.stringify(Object.fromEntries(statuses))}, network failures ${failures}`,
  );
  console.log(`[soak] errors (not 200/429): ${bad}`);
  console.log(
    `[soak] workerd RSS: start ${(memory[0].kib / 1024).toFixed(1)} MiB, peak ${(peak / 1024).toFixed(1)} MiB, end of load ${(endOfLoad / 1024).toFixed(1)} MiB, after ${IDLE_SECONDS} s idle ${(afterIdle / 1024).toFixed(1)} MiB`,
  );
  console.log(`[soak] RSS over the second half of the load: ${half.map((m) => (m.kib / 1024).toFixed(0)).join(" → ")} MiB`);
  console.log(`[soak] limits: ${over.length === 0 ? "every key within its limit (exact)" : over.join("; ")}`);
  process.exitCode = bad === 0 && over.length === 0 ? 0 : 1;
} finally {
  clearInterval(sampler);
  // Read once workerd has stopped: its log is complete only then (a warning may come as an isolate shuts down).
  const warnings = await server.stop();
  console.log(`[soak] runtime warnings in ${logFile.slice(root.length + 1)}: ${warningCounts(warnings)}`);
  if (warnings.total > 0) {
    for (const line of warningLines(warnings, "[soak]   ")) console.log(line);
    // Continuations cancelled across requests and uncaught exceptions fail the soak. workerd's own C++ warnings are
    // printed, not failed on: one "dropped queued cross-context actions" at an isolate's start is still open (bench/README.md,
    // "Runtime warnings").
    const failing = warnings.byKind["cross-request promise"] + warnings.byKind.uncaught + warnings.byKind["workerd error"];
    if (failing > 0) process.exitCode = 1;
  }
}
