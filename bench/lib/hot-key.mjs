/**
 * One hot key in many isolates, without `precount` (docs/precount.md, "Hot
 * keys lease on their own"): the object's calls a second, and the
 * overshoot. One workerd runs E copies of the floodgate bundle as separate
 * services sharing edge-1's Durable Object namespaces (the overshoot's
 * config, bench/lib/overshoot.mjs), so each is its own isolate with its own
 * coalescer and pre-counting table, all counting against the same
 * CounterObject, as isolates in different colos would. Every edge is kept
 * busy with `inFlight` requests of one key at a time for the whole run; each
 * second the object calls are read from edge-1's `GET /__bench/usage` (the
 * objects live in edge-1's isolate, so its tally counts every call to them).
 */
import { rmSync } from "node:fs";
import { Agent, request } from "node:http";
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
export async function measureHotKey({ floodgate, workDir, edges = 64, inFlight = 2, seconds = 10, limit = 10_000, log = () => {} }) {
  const storageDir = join(workDir, "storage");
  rmSync(storageDir, { recursive: true, force: true });
  const { path: configPath, ports } = await writeOvershootConfig(workDir, floodgate, edges, storageDir);
  const server = await startWorkerd(configPath, ports, join(workDir, "workerd.log"));
  const portList = Object.values(ports);
  const agents = portList.map(() => new Agent({ keepAlive: true, maxSockets: inFlight }));
  let result;
  try {
    const run = Date.now().toString(36);
    const open = await phase({ portList, agents, inFlight, path: HOT_PATHS.open, key: `hot-open-${run}`, seconds, log });
    const limited = await phase({ portList, agents, inFlight, path: HOT_PATHS.limited, key: `hot-limit-${run}`, seconds, log });
    result = {
      edges,
      inFlight,
      seconds,
      open,
      limited: { ...limited, limit, overshoot: Math.max(0, limited.allowed - limit), falseDenies: Math.max(0, limit - limited.allowed) },
    };
  } finally {
    for (const agent of agents) agent.destroy();
    const warnings = await server.stop();
    log(`hot key: runtime warnings ${JSON.stringify(warnings)}`);
    if (result !== undefined) result.runtimeWarnings = warnings;
    rmSync(storageDir, { recursive: true, force: true });
  }
  return result;
}

/** Keep every edge busy with `inFlight` requests of `key` on `path` for `seconds`; count answers and object calls each second. */
async function phase({ portList, agents, inFlight, path, key, seconds, log }) {
  const counts = { allowed: 0, rejected: 0, failed: 0 };
  const until = Date.now() + seconds * 1_000;
  const loops = portList.flatMap((port, e) =>
    Array.from({ length: inFlight }, async () => {
      while (Date.now() < until) {
        const status = await get(agents[e], port, path, key).catch(() => 0);
        if (status === 200) counts.allowed += 1;
        else if (status === 429) counts.rejected += 1;
        else counts.failed += 1;
      }
    }),
  );
  const perSecond = [];
  let lastCalls = await objectCalls(portList[0]);
  let lastAnswers = 0;
  for (let s = 0; s < seconds; s++) {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const calls = await objectCalls(portList[0]);
    const answers = counts.allowed + counts.rejected + counts.failed;
    perSecond.push({ requests: answers - lastAnswers, calls: calls - lastCalls });
    lastCalls = calls;
    lastAnswers = answers;
  }
  await Promise.all(loops);
  const requests = counts.allowed + counts.rejected + counts.failed;
  const row = {
    path,
    requests,
    ...counts,
    requestsPerSecond: perSecond.map((p) => p.requests),
    callsPerSecond: perSecond.map((p) => p.calls),
    maxCallsPerSecond: Math.max(...perSecond.map((p) => p.calls)),
  };
  log(
    `hot key ${path}: ${requests} requests (${counts.allowed} allowed, ${counts.rejected} refused, ${counts.failed} failed); per second requests ${row.requestsPerSecond.join(" ")}; object calls ${row.callsPerSecond.join(" ")}`,
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
    "| phase | requests | allowed | refused | failed | requests/s, each second | object calls/s, each second | most object calls in a second | overshoot |",
    "|---|---:|---:|---:|---:|---|---|---:|---:|",
  ];
  for (const [name, r] of [
    ["limit never reached", result.open],
    [`limit ${result.limited.limit} per hour`, result.limited],
  ]) {
    const overshoot = r.overshoot === undefined ? "—" : `${r.overshoot} (allowed ${r.allowed} of ${r.limit})`;
    lines.push(
      `| ${name} | ${r.requests} | ${r.allowed} | ${r.rejected} | ${r.failed} | ${r.requestsPerSecond.join(" ")} | ${r.callsPerSecond.join(" ")} | ${r.maxCallsPerSecond} | ${overshoot} |`,
    );
  }
  return lines.join("\n");
}

/** One GET over a kept-alive connection; resolves with its status once the body is read. */
function get(agent, port, path, key) {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, agent, headers: { "x-api-key": key } }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode));
      res.on("error", reject);
    });
    req.setTimeout(15_000, () => req.destroy(new Error(`no answer from 127.0.0.1:${port} within 15 s`)));
    req.on("error", reject);
    req.end();
  });
}
