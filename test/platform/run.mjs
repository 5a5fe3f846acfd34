#!/usr/bin/env node
// `npm run test:platform` (docs/testing.md, "test:platform"): does to the real
// worker what Cloudflare does to Durable Objects in production, and checks
// that every limit holds (docs/reliability.md, "Bounds and the tests that
// hold them"). Builds the worker with wrangler as a deploy does (entry:
// test/platform/worker/entry.ts, the suite's rules), runs it in one workerd
// as several services (each its own isolate, all on the same counter
// objects), then: (a) evictions, (b) object calls failing overloaded, reset
// or unreachable at a rate, (c) bursts with and without request.cf, (d) one
// hot key through many isolates, (e) idle objects evicted (none kept awake). Prints a table (check, measured, bound,
// pass) and exits 1 on any failure. Only 127.0.0.1 is contacted.
//
// Options: --isolates E (default 64) · --only eviction,idle,alarms,faults,bursts,isolates,versions,answers,churn,home,deploy ·
// --keep (leave the build, config, log and storage in place; their folder is printed) ·
// --previous REV (the deploy before, for the mixed-version rows; default HEAD^, the previous main; none: skip them).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { buildWorkers } from "../../bench/lib/build.mjs";
import { startWorkerd } from "../../bench/lib/workerd.mjs";
import { ALARM_SERVICES, alarmChecks } from "./checks/alarms.mjs";
import { answerChecks, answerServices, startOrigin } from "./checks/answers.mjs";
import { BURST_SERVICES, burstChecks } from "./checks/bursts.mjs";
import { CHURN_SERVICES, churnChecks } from "./checks/churn.mjs";
import { DEPLOY_SERVICES, deployChecks, spendBeforeDeploy } from "./checks/deploy.mjs";
import { evictionCheck } from "./checks/eviction.mjs";
import { FAULT_SERVICES, faultChecks } from "./checks/faults.mjs";
import { homeResetChecks } from "./checks/home-reset.mjs";
import { idleChecks } from "./checks/idle.mjs";
import { edgeServices, isolateChecks } from "./checks/isolates.mjs";
import { previousServices, VERSION_SERVICES, versionChecks } from "./checks/versions.mjs";
import { writePlatformConfig } from "./lib/config.mjs";
import { buildPrevious, resolveCommit } from "./lib/previous.mjs";
import { closeConnections } from "./lib/traffic.mjs";

process.env.WRANGLER_SEND_METRICS = "false";
const { values: options } = parseArgs({
  options: {
    isolates: { type: "string", default: "64" },
    only: { type: "string", default: "eviction,idle,alarms,faults,bursts,isolates,versions,answers,churn,home,deploy" },
    keep: { type: "boolean", default: false },
    previous: { type: "string", default: "HEAD^" },
  },
});
const edges = Number(options.isolates);
const CHECKS = ["eviction", "idle", "alarms", "faults", "bursts", "isolates", "versions", "answers", "churn", "home", "deploy"];
const only = new Set(options.only.split(","));
for (const name of only) if (!CHECKS.includes(name)) throw new Error(`--only takes ${CHECKS.join(", ")}, not ${name}`);
if (!(Number.isInteger(edges) && edges >= 1 && edges <= 128)) throw new Error(`--isolates must be 1-128, not ${options.isolates}`);

const root = fileURLToPath(new URL("../..", import.meta.url));
const work = mkdtempSync(join(tmpdir(), "floodgate-platform-"));
const started = performance.now();
const log = (line) => console.log(`  ${((performance.now() - started) / 1000).toFixed(1).padStart(5)} s  ${line}`);

const rows = [];
let server;
let origin;
/** A check's failure to run at all is a failed row, not the end of the run. */
const failedRun = (name) => (error) => [
  { check: `${name}: the run itself`, measured: String(error.message ?? error).split("\n")[0], bound: "no error", pass: false },
];
try {
  log("building the worker (wrangler deploy --dry-run, entry test/platform/worker/entry.ts)");
  const { platform } = await buildWorkers(root, join(work, "build"), [{ name: "platform", config: "wrangler.toml", entry: "test/platform/worker/entry.ts" }]);
  // The deploy before, built from git (skipped in a clone without that commit).
  let commit = only.has("versions") && options.previous !== "none" ? resolveCommit(root, options.previous) : undefined;
  let previous = { services: {}, builds: {} };
  if (commit !== undefined) {
    log(`building the worker of ${commit.short} (${options.previous}: ${commit.subject.slice(0, 60)}) for the mixed-version rows`);
    try {
      previous = previousServices(await buildPrevious(root, commit, join(work, "previous")));
    } catch (error) {
      rows.push(...failedRun(`versions: building ${commit.short}`)(error));
      commit = undefined;
    }
  } else if (only.has("versions")) log(`no commit ${options.previous} in this clone: the mixed-version rows of a built deploy before are skipped`);
  origin = await startOrigin();
  const services = {
    home: {},
    ...FAULT_SERVICES,
    ...BURST_SERVICES,
    ...edgeServices(edges),
    ...ALARM_SERVICES,
    ...VERSION_SERVICES,
    ...answerServices(origin.url),
    ...CHURN_SERVICES,
    ...DEPLOY_SERVICES,
    ...previous.services,
  };
  const { path, ports } = await writePlatformConfig(join(work, "config"), platform, services, join(work, "storage"), previous.builds);
  server = await startWorkerd(path, ports, join(work, "workerd.log"), { inspectorPort: null, startMs: 120_000 });
  log(`workerd (pid ${server.pid}) serving ${Object.keys(services).length} services, each its own isolate, on one counters namespace`);

  // A key spent long before the deploy, so its count is written by then.
  const spent = only.has("deploy") ? await spendBeforeDeploy({ ports }) : undefined;
  // The evictions mostly wait (12 s gaps) on objects of their own (placement per_key): the other checks run meanwhile.
  const evictions = Promise.all((only.has("eviction") ? ["idle", "abort"] : []).map((mode) => evictionCheck({ port: ports.home, mode, log })))
    .then((r) => r.flat())
    .catch(failedRun("eviction"));
  // Idle objects sleeping, and alarms settling: waits too, on objects of their own (domains platform-idle, platform-alarms).
  const idle = (only.has("idle") ? idleChecks({ port: ports.home, trafficPort: ports.bursts, log }) : Promise.resolve([])).catch(failedRun("idle"));
  const alarms = (only.has("alarms") ? alarmChecks({ ports, log }) : Promise.resolve([])).catch(failedRun("alarms"));
  const others = [];
  const checks = [
    ["faults", () => faultChecks({ ports, failureMode: platform.vars.FAILURE_MODE ?? "(unset)", log })],
    ["bursts", () => burstChecks({ port: ports.bursts, log })],
    ["isolates", () => isolateChecks({ ports, edges, log })],
    ["versions", () => versionChecks({ ports, commit, log })],
    ["answers", () => answerChecks({ ports, log })],
    ["churn", () => churnChecks({ ports, log })],
    ["home", () => homeResetChecks({ ports, log })],
  ];
  for (const [name, check] of checks) if (only.has(name)) others.push(...(await check().catch(failedRun(name))));
  rows.push(...(await evictions), ...(await idle), ...(await alarms), ...others);
  // Last: it resets every object and isolate of today's build (the deploy before's services are another deployment).
  const todays = Object.keys(ports)
    .filter((id) => !(id in previous.services))
    .map((id) => ports[id]);
  if (spent !== undefined) rows.push(...(await deployChecks({ ports, isolates: todays, spent, log }).catch(failedRun("deploy"))));
} catch (error) {
  console.error(error);
  rows.push({ check: "the run itself", measured: String(error.message ?? error).split("\n")[0], bound: "no error", pass: false });
} finally {
  closeConnections();
  await origin?.close();
  if (server) {
    const warnings = await server.stop();
    // workerd's alarm manager notes an alarm that ran past its time or was moved while it ran, and an alarm ended by
    // the suite's own abort: what the alarm faults (checks/alarms.mjs: late, retried, repeated, reset) and the
    // suite's evictions do on purpose. Printed, not counted.
    const ofAlarmFaults = (line) =>
      /NOSENTRY SQLite alarm (overdue|handler canceled)/.test(line) || /alarm-scheduler.*platform test: object evicted/.test(line);
    const counted = warnings.lines.filter((l) => !ofAlarmFaults(l.line));
    const total = counted.reduce((sum, l) => sum + l.count, 0);
    for (const { kind, line, count } of warnings.lines.slice(0, 5))
      console.log(`  workerd ${kind} (${count}×)${ofAlarmFaults(line) ? " [the alarm faults', not counted]" : ""}: ${line}`);
    rows.push({
      check: "no runtime warnings in workerd's log (but the alarm manager's notes of the injected alarm faults)",
      measured: `${total} warning(s)${total > 0 ? " (printed above; --keep keeps the log)" : ""}`,
      bound: "0",
      pass: total === 0,
    });
  }
  if (options.keep) console.log(`kept: ${work}`);
  else rmSync(work, { recursive: true, force: true });
}

const widths = ["check", "measured", "bound"].map((k) => Math.max(k.length, ...rows.map((r) => r[k].length)));
const line = (cells) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 4)).join(" | ")} |`;
console.log(`\n${line(["check", "measured", "bound", "pass"])}`);
console.log(line(widths.map((w) => "-".repeat(w)).concat("----")));
for (const r of rows) console.log(line([r.check, r.measured, r.bound, r.pass ? "pass" : "FAIL"]));
const failed = rows.filter((r) => !r.pass).length;
console.log(`\ntest:platform: ${rows.length - failed} passed, ${failed} failed, in ${((performance.now() - started) / 1000).toFixed(0)} s`);
process.exit(failed === 0 ? 0 : 1);
