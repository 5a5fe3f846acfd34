/**
 * One hot key in many isolates, without `precount` (docs/precount.md, "Hot
 * keys lease on their own"): the object's calls a second, and the
 * overshoot. One workerd runs E copies of the floodgate bundle as separate
 * services sharing edge-1's Durable Object namespaces (the overshoot's
 * config, bench/lib/overshoot.mjs), so each is its own isolate with its own
 * coalescer and pre-counting table, all counting against the same
 * CounterObject, as isolates in different colos would. Every edge is kept
 * busy with `inFlight` requests of one key at a time for the whole run (one
 * wrk process per edge, bench/lib/load.lua); each
 * second the object calls are read from edge-1's `GET /__bench/usage` (the
 * objects live in edge-1's isolate, so its tally counts every call to them).
 */
import { rmSync } from "node:fs";
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { writeOvershootConfig } from "./overshoot.mjs";
import { startWorkerd } from "./workerd.mjs";

/** Paths in bench/rules/bench.json: a limit no run reaches, and one the run goes 3 × past (fixed window, no precount). */
export const HOT_PATHS = { open: "/sharded/hot-key-auto", limited: "/sharded/hot-key-auto-limit" };

/**
 * Run both phases on `edges` isolates and return, per phase, the requests and
 * object calls of every second, allowed and refused counts, and the overshoot.
 *
 * @example
 * const result = await measureHotKey({ floodgate: built.floodgate, workDir, edges: 64, seconds: 10, log: console.log });
 * result.open.callsPerSecond; // [612, 240, …]
 */
export async function measureHotKey({ floodgate, workDir, edges = 64, inFlight = 2, seconds = 10, limit = 1_000, openPath = HOT_PATHS.open, log = () => {} }) {
  const storageDir = join(workDir, "storage");
  rmSync(storageDir, { recursive: true, force: true });
  const { path: configPath, ports } = await writeOvershootConfig(workDir, floodgate, edges, storageDir);
  const server = await startWorkerd(configPath, ports, join(workDir, "workerd.log"));
  const portList = Object.values(ports);
  let result;
  try {
    const run = Date.now().toString(36);
    // Warm-up: every isolate compiles the bundle and the rules on its first gateway request (seconds each on a busy
    // machine); one request per edge on each path, on keys of their own, before anything is measured.
    const warmStart = Date.now();
    await Promise.all(
      portList.map((port, e) =>
        Promise.all(
          [openPath, HOT_PATHS.limited].map((p) =>
            fetch(`http://127.0.0.1:${port}${p}`, { headers: { "x-api-key": `warm-${run}-${e}` } }).then((r) => r.arrayBuffer()),
          ),
        ),
      ),
    );
    log(`hot key: ${edges} isolates warmed up in ${((Date.now() - warmStart) / 1_000).toFixed(1)} s`);
    const open = await phase({ portList, inFlight, path: openPath, key: `hot-open-${run}`, seconds, log });
    const limited = await phase({ portList, inFlight, path: HOT_PATHS.limited, key: `hot-limit-${run}`, seconds, log });
    result = {
      edges,
      inFlight,
      seconds,
      open,
      limited: { ...limited, limit, overshoot: Math.max(0, limited.allowed - limit), falseDenies: Math.max(0, limit - limited.allowed) },
    };
  } finally {
    const warnings = await server.stop();
    log(`hot key: runtime warnings ${JSON.stringify(warnings)}`);
    if (result !== undefined) result.runtimeWarnings = warnings;
    rmSync(storageDir, { recursive: true, force: true });
  }
  return result;
}

/**
 * Keep every edge busy with `inFlight` requests of `key` on `path` for
 * `seconds` (one wrk per edge, bench/lib/load.lua's fixed key), and count
 * the object calls each second meanwhile.
 */
async function phase({ portList, inFlight, path, key, seconds, log }) {
  const until = Date.now() + seconds * 1_000;
  const counts = { allowed: 0, rejected: 0, failed: 0 };
  let answered = 0;
  const loops = portList.map((port) =>
    wrk(port, path, key, inFlight, seconds).then((r) => {
      counts.allowed += r.ok + r.failopen;
      counts.rejected += r.limited;
      counts.failed += r.other + r.socket_errors;
      answered += r.requests;
    }),
  );
  // wrk reports at its end only: requests a second are the whole phase's; object calls are read each second.
  const answers = () => answered;
  // Sampled on the wall clock: reading the tally takes a while on a busy machine, so each interval is divided by its own length.
  const perSecond = [];
  const startedAt = Date.now();
  let last = { at: startedAt, calls: await objectCalls(portList[0]), answers: 0 };
  const firstCalls = last.calls;
  for (let s = 1; startedAt + s * 1_000 <= until; s++) {
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, startedAt + s * 1_000 - Date.now())));
    const calls = await objectCalls(portList[0]);
    const at = Date.now();
    const elapsed = (at - last.at) / 1_000;
    perSecond.push({ calls: Math.round((calls - last.calls) / elapsed) });
    last = { at, calls, answers: answers() };
  }
  await Promise.all(loops);
  const durationSeconds = (Date.now() - startedAt) / 1_000;
  const calls = (await objectCalls(portList[0])) - firstCalls;
  const requests = counts.allowed + counts.rejected + counts.failed;
  const row = {
    path,
    requests,
    ...counts,
    durationSeconds,
    calls,
    requestsPerSecondOverall: Math.round(requests / durationSeconds),
    callsPerSecondOverall: Math.round(calls / durationSeconds),
    callsPerSecond: perSecond.map((p) => p.calls),
    maxCallsPerSecond: Math.max(...perSecond.map((p) => p.calls)),
  };
  log(
    `hot key ${path}: ${requests} requests in ${durationSeconds.toFixed(1)} s (${counts.allowed} allowed, ${counts.rejected} refused, ${counts.failed} failed), ${calls} object calls; ` +
      `object calls each second ${row.callsPerSecond.join(" ")}`,
  );
  return row;
}

/** The object calls edge-1's isolate has served so far (bench/workers/usage.ts). */
async function objectCalls(port) {
  const response = await fetch(`http://127.0.0.1:${port}/__bench/usage`);
  return (await response.json()).calls;
}

/**
 * The result as markdown: per phase, the requests and object calls of each second.
 *
 * @example
 * console.log(printHotKey(result));
 */
export function printHotKey(result) {
  const lines = [
    `One hot key, no precount: ${result.edges} isolates in one workerd sharing one CounterObject namespace, ${result.inFlight} requests in flight per isolate (${result.edges * result.inFlight} connections), ${result.seconds} s per phase`,
    "",
    "| phase | requests | allowed | refused | failed | requests/s (whole phase) | object calls/s (whole phase) | object calls/s, each second | most object calls in a second | overshoot |",
    "|---|---:|---:|---:|---:|---:|---:|---|---:|---:|",
  ];
  for (const [name, r] of [
    ["limit never reached", result.open],
    [`limit ${result.limited.limit} per hour`, result.limited],
  ]) {
    const overshoot = r.overshoot === undefined ? "—" : `${r.overshoot} (allowed ${r.allowed} of ${r.limit})`;
    lines.push(
      `| ${name} | ${r.requests} | ${r.allowed} | ${r.rejected} | ${r.failed} | ${r.requestsPerSecondOverall} | ${r.callsPerSecondOverall} | ${r.callsPerSecond.join(" ")} | ${r.maxCallsPerSecond} | ${overshoot} |`,
    );
  }
  return lines.join("\n");
}

const LOAD_LUA = fileURLToPath(new URL("./load.lua", import.meta.url));

/** One wrk on one edge: `connections` connections, one thread, `seconds`; its BENCH_RESULT line, parsed. */
function wrk(port, path, key, connections, seconds) {
  return new Promise((resolve, reject) => {
    const args = [
      "-t1",
      `-c${connections}`,
      `-d${seconds}s`,
      "--timeout",
      "15s",
      "-s",
      LOAD_LUA,
      `http://127.0.0.1:${port}${path}`,
      "--",
      "1000000000",
      "fixed",
      "hot",
      key,
    ];
    execFile("wrk", args, { maxBuffer: 1 << 20 }, (error, stdout) => {
      const line = /BENCH_RESULT (.*)/.exec(stdout)?.[1];
      if (line === undefined) reject(error ?? new Error(`wrk on port ${port} printed no BENCH_RESULT:\n${stdout}`));
      else resolve(JSON.parse(line));
    });
  });
}
