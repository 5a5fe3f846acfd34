/**
 * Pre-counting against its bound, measured (docs/precount.md,
 * "The bound"). Isolates spend only quota
 * the counter object leased them, and the object counts leased quota as
 * taken for everyone else, so the bound on overshoot is 0 for any number
 * of isolates E; the price is false denies, quota leased to an isolate
 * that does not spend it before it is given back or expires.
 *
 * One workerd of its own runs E copies of the floodgate bundle as separate
 * services ("edge-1" … "edge-E"), so each is its own isolate with its own
 * pre-counting table, and all of them share edge-1's Durable Object
 * namespaces, so they count against the same CounterObject, as isolates in
 * different colos would. A seeded trace of one fresh key, spread over the
 * edges with several requests in flight on each, runs to 3 × the limit:
 * every 200 beyond the limit is overshoot, every one the limit had room
 * for but that never came is a false deny. Then, on a second key left
 * under the limit, every edge is asked once 2 × sync_ms after traffic
 * stopped, to see that its view agrees with the object's count
 * (convergence).
 */
import { readFileSync, rmSync } from "node:fs";
import { Agent, request } from "node:http";
import { join } from "node:path";
import { seededRandom, seedOf } from "./random.mjs";
import { startWorkerd, writeConfig } from "./workerd.mjs";

const RULES = new URL("../rules/bench.json", import.meta.url);

/** Paths in bench/rules/bench.json (fixed window, precount): full runs and `--quick`. */
const PATHS = { full: "/sharded/precount-overshoot", quick: "/sharded/precount-overshoot-quick" };

/**
 * Isolate counts E measured: full runs and `--quick`.
 *
 * @example
 * EDGE_COUNTS.full.at(-1); // 64
 */
export const EDGE_COUNTS = { full: [1, 2, 4, 8, 16, 32, 64], quick: [2] };

/**
 * Requests in flight per edge, for every E: enough that every edge keeps
 * deciding locally while the others do too, and the same load per isolate
 * in every row, so E is all that changes (leases follow each isolate's
 * rate). 64 edges make 512 connections; on 2 cores that row took ~3 s with
 * no failed request and workerd peaking at ~600 MiB, against 1 in flight
 * per edge (64 in all): ~3 s and ~490 MiB.
 */
const IN_FLIGHT_PER_EDGE = 8;

/** The trace runs to this many times the limit, well past the point where every edge has learned the key is full. */
const TRAFFIC_FACTOR = 3;

/** The overshoot bound with leases, in % of the limit, for every E: isolates together never allow more than the limit. */
const BOUND_PERCENT = 0;

// A failed-open 200 would count as an allow and inflate the overshoot; closed
// turns a slow object into a 503 we count apart, and the long timeout makes
// one unlikely on a shared 2-core machine.
const VARS = { FAILURE_MODE: "closed", DECISION_TIMEOUT_MS: "5000" };

const UNITS_MS = { second: 1_000, minute: 60_000, hour: 3_600_000, day: 86_400_000 };

const memoryKiB = (pid, field) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? NaN);

/**
 * Measure overshoot and false denies with 1, 2, 4 … 64 edges (`quick`: 2
 * edges and a limit of 400, a few seconds; `edgeCounts` overrides either).
 * `floodgate` is `buildWorkers(…).floodgate`; `workDir` gets the config,
 * the log and the objects' storage (wiped first, so the seeded keys are
 * fresh). Returns a JSON-able result with one row per edge count, what the
 * workerd of the largest count took to start and held in memory, and the
 * runtime warnings in its log.
 *
 * @example
 * const built = await buildWorkers(root, join(work, "build"));
 * const overshoot = await measureOvershoot({ floodgate: built.floodgate, workDir: join(work, "overshoot"), quick, log });
 * overshoot.rows[6]; // { edges: 64, limit: 2000, allowed: 1996, overshootPercent: 0, boundPercent: 0, withinBound: true, falseDenyPercent: 0.2, … }
 */
export async function measureOvershoot({ floodgate, workDir, quick = false, edgeCounts = quick ? EDGE_COUNTS.quick : EDGE_COUNTS.full, log = () => {} }) {
  const path = quick ? PATHS.quick : PATHS.full;
  const { limit, windowMs, syncMs } = ruleOf(path);
  const storageDir = join(workDir, "storage");
  rmSync(storageDir, { recursive: true, force: true });
  const isolates = Math.max(...edgeCounts);
  const { path: configPath, ports } = await writeOvershootConfig(workDir, floodgate, isolates, storageDir);
  const startedAt = Date.now();
  // Every edge compiles the bundle: 64 of them answered within ~1 s of the start here, well inside startWorkerd's 30 s.
  const server = await startWorkerd(configPath, ports, join(workDir, "workerd.log"));
  const workerd = { isolates, startSeconds: (Date.now() - startedAt) / 1000, rssMiB: memoryKiB(server.pid, "VmRSS") / 1024 };
  log(
    `overshoot: workerd (pid ${server.pid}) with ${isolates} edges sharing one CounterObject namespace, every one answering after ${workerd.startSeconds.toFixed(1)} s, RSS ${workerd.rssMiB.toFixed(0)} MiB; ${path}, limit ${limit}, sync ${syncMs} ms`,
  );
  const agents = Object.keys(ports).map(() => new Agent({ keepAlive: true, maxSockets: IN_FLIGHT_PER_EDGE }));
  const rows = [];
  let runtimeWarnings;
  try {
    for (const edges of edgeCounts) {
      const row = await measureEdges({ edges, ports: Object.values(ports), agents, path, limit, windowMs, syncMs });
      rows.push(row);
      log(
        `overshoot: ${edges} edge(s): ${row.allowed} of ${row.requests} allowed, limit ${limit}: ` +
          `overshoot ${row.overshootPercent.toFixed(2)} % (bound ${row.boundPercent} %), false denies ${row.falseDenyPercent.toFixed(2)} %${row.failed > 0 ? `, ${row.failed} failed` : ""}`,
      );
    }
    workerd.peakRssMiB = memoryKiB(server.pid, "VmHWM") / 1024;
  } finally {
    for (const agent of agents) agent.destroy();
    runtimeWarnings = await server.stop();
    rmSync(storageDir, { recursive: true, force: true });
  }
  return {
    path,
    limit,
    windowMs,
    syncMs,
    boundPercent: BOUND_PERCENT,
    inFlightPerEdge: IN_FLIGHT_PER_EDGE,
    requestsPerRun: TRAFFIC_FACTOR * limit,
    workerd,
    rows,
    runtimeWarnings,
  };
}

/**
 * The result as a markdown table: overshoot in % of the limit beside its
 * bound (0 % for every E: allowed ≤ limit), the false denies the leases
 * cost, and whether every edge had converged 2 × sync_ms after traffic
 * stopped.
 *
 * @example
 * console.log(printOvershoot(await measureOvershoot({ floodgate, workDir, quick: true })));
 */
export function printOvershoot(result) {
  const w = result.workerd;
  const lines = [
    `Pre-counting overshoot: ${result.path} (fixed window, ${result.limit.toLocaleString("en-US")} per ${windowText(result.windowMs)}, sync ${result.syncMs} ms), ` +
      `${result.requestsPerRun.toLocaleString("en-US")} requests of one key spread over E isolates, ${result.inFlightPerEdge} in flight per isolate ` +
      `(${result.inFlightPerEdge * w.isolates} connections at E = ${w.isolates}); one workerd with ${w.isolates} isolates, every one answering ${w.startSeconds.toFixed(1)} s after start, RSS ${w.rssMiB.toFixed(0)} MiB then, peak ${w.peakRssMiB?.toFixed(0) ?? "—"} MiB`,
    "",
    "| isolates (E) | limit | allowed | overshoot | overshoot, % of limit | bound, % | within bound (allowed ≤ limit) | false denies, % of limit | answers exact 2 × sync_ms after traffic stops |",
    "|---:|---:|---:|---:|---:|---:|:---:|---:|:---:|",
  ];
  for (const r of result.rows) {
    const failed = r.failed > 0 ? ` (${r.failed} failed)` : "";
    const c = r.convergence;
    // Name how long the worst edge had been quiet: one that fell quiet early may have synced for the last time before the others did.
    const worst = c.views.reduce((w, v, e) => (Math.abs(v - (c.expectedRemaining - e)) > Math.abs(c.views[w] - (c.expectedRemaining - w)) ? e : w), 0);
    const converged = c.converged
      ? `yes (${r.edges}/${r.edges})`
      : `no: ${c.agreeing}/${r.edges}, off by ≤ ${c.maxError} (edge quiet ${c.quietBeforeStopMs[worst]} ms before the end)`;
    lines.push(
      `| ${r.edges} | ${r.limit} | ${r.allowed}${failed} | ${r.overshoot} | ${r.overshootPercent.toFixed(2)} % | ${r.boundPercent} % | ${r.withinBound ? "yes" : "**no**"} | ${r.falseDenyPercent.toFixed(2)} % (${r.falseDenies}) | ${converged} |`,
    );
  }
  lines.push(
    "",
    `Overshoot: 200s beyond the limit. False denies: limit − allowed when the trace ran to ${TRAFFIC_FACTOR} × the limit (0 when allowed ≥ limit): quota leased to isolates that did not spend it before it came back. ` +
      `Views: on a second key left at half its limit, each isolate in turn answers one more request ${result.rows[0]?.convergence.waitedMs ?? 2 * result.syncMs} ms after the last answer; its X-RateLimit-Remaining must be exact (all allowed hits and the probes before it counted).`,
  );
  return lines.join("\n");
}

const windowText = (ms) => Object.entries(UNITS_MS).find(([, unitMs]) => unitMs === ms)?.[0] ?? `${ms / 1000} s`;

/** The limit, window and sync period of the one rate limit on `path` in the bench rules. */
function ruleOf(path) {
  const domain = JSON.parse(readFileSync(RULES, "utf8")).find((d) => d.domain === "bench-sharded");
  const node = domain.descriptors.find((d) => d.key === "path" && d.value === path);
  const limit = node?.descriptors?.[0]?.rate_limit;
  if (!limit?.precount || limit.algorithm !== "fixed_window")
    throw new Error(`bench/rules/bench.json: ${path} needs one fixed_window rate limit with precount`);
  return { limit: limit.requests_per_unit, windowMs: UNITS_MS[limit.unit] * (limit.unit_multiplier ?? 1), syncMs: limit.precount.sync_ms };
}

/** One row: the overshoot run and the convergence check, redone on new keys if a window boundary fell inside. */
async function measureEdges({ edges, ports, agents, path, limit, windowMs, syncMs }) {
  for (let attempt = 1; ; attempt++) {
    const seed = seedOf(`overshoot-${path}-${edges}-${attempt}`);
    const key = `overshoot-${edges}-${seed.toString(36)}`;
    const startedWindow = Math.floor(Date.now() / windowMs);
    const counts = await drive({ edges, ports, agents, path, key, requests: TRAFFIC_FACTOR * limit, seed });
    const convergence = await converge({ edges, ports, agents, path, key: `${key}-converge`, limit, syncMs, seed: seed ^ 0x5bd1e995 });
    // A fixed window that rolled mid-run would hand out a second quota: not overshoot.
    if (Math.floor(Date.now() / windowMs) !== startedWindow) continue;
    const overshoot = Math.max(0, counts.allowed - limit);
    // The trace offered 3 × the limit, so every allow short of the limit is quota held back from a request that asked for it.
    const falseDenies = Math.max(0, limit - counts.allowed);
    return {
      edges,
      limit,
      requests: counts.requests,
      allowed: counts.allowed,
      rejected: counts.rejected,
      failed: counts.failed,
      overshoot,
      overshootPercent: (overshoot / limit) * 100,
      boundPercent: BOUND_PERCENT,
      withinBound: counts.allowed <= limit,
      falseDenies,
      falseDenyPercent: (falseDenies / limit) * 100,
      convergence,
    };
  }
}

/**
 * Send `requests` requests of `key`, each to an edge the seeded generator
 * picks, `IN_FLIGHT_PER_EDGE` at a time per edge; count the answers.
 */
async function drive({ edges, ports, agents, path, key, requests, seed }) {
  const random = seededRandom(seed);
  const queues = Array.from({ length: edges }, () => 0);
  for (let i = 0; i < requests; i++) queues[Math.floor(random() * edges)] += 1;
  const counts = { requests, allowed: 0, rejected: 0, failed: 0, lastAnswerAt: queues.map(() => 0) };
  await Promise.all(
    queues.flatMap((size, e) => {
      let left = size;
      return Array.from({ length: IN_FLIGHT_PER_EDGE }, async () => {
        while (left > 0) {
          left -= 1;
          const { status } = await get(agents[e], ports[e], path, key);
          counts.lastAnswerAt[e] = Date.now();
          if (status === 200) counts.allowed += 1;
          else if (status === 429) counts.rejected += 1;
          else counts.failed += 1;
        }
      });
    }),
  );
  return counts;
}

/**
 * Leave a second key at half its limit, wait 2 × sync_ms, then ask every
 * edge once, one after another: each answer must be exact, remaining =
 * limit − (all allowed so far) − (the probes so far, its own included).
 * By then no counter is hot in any isolate (its last hit is over sync_ms
 * old), so a converged edge asks the object; an edge answering from a
 * stale view would be off by the hits it has not seen.
 */
async function converge({ edges, ports, agents, path, key, limit, syncMs, seed }) {
  const counts = await drive({ edges, ports, agents, path, key, requests: Math.floor(limit / 2), seed });
  await new Promise((resolve) => setTimeout(resolve, 2 * syncMs));
  const expected = limit - counts.allowed - 1;
  const views = [];
  for (let e = 0; e < edges; e++) {
    const { headers } = await get(agents[e], ports[e], path, key);
    views.push(Number(headers["x-ratelimit-remaining"]));
  }
  const errors = views.map((v, e) => (Number.isFinite(v) ? Math.abs(v - (expected - e)) : Infinity));
  const agreeing = errors.filter((e) => e === 0).length;
  // How long before the last answer of all each edge answered its own last request: an edge that fell quiet early may have synced for the last time before the others' last hits reached the object.
  const stop = Math.max(...counts.lastAnswerAt);
  const quietBeforeStopMs = counts.lastAnswerAt.map((t) => stop - t);
  return {
    waitedMs: 2 * syncMs,
    expectedRemaining: expected,
    views,
    agreeing,
    maxError: Math.max(...errors),
    quietBeforeStopMs,
    converged: agreeing === edges && counts.failed === 0,
  };
}

/** One GET over a kept-alive connection; resolves with status and headers once the body is read. */
function get(agent, port, path, key) {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, agent, headers: { "x-api-key": key } }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode, headers: res.headers }));
      res.on("error", reject);
    });
    req.setTimeout(15_000, () => req.destroy(new Error(`no answer from 127.0.0.1:${port} within 15 s`)));
    req.on("error", reject);
    req.end();
  });
}

/**
 * Write the config of `edges` edges into `dir` and return its path and the
 * port of each edge ("edge-1" → port, in order).
 *
 * @example
 * const { path, ports } = await writeOvershootConfig(workDir, built.floodgate, 4, join(workDir, "storage"));
 */
export async function writeOvershootConfig(dir, worker, edges, storageDir) {
  const ids = Array.from({ length: edges }, (_, i) => `edge-${i + 1}`);
  // Edge 1 declares the objects; the others bind the same ones (objectsFrom), so every edge keeps its own isolate.
  const services = Object.fromEntries(ids.map((id, i) => [id, { worker, vars: VARS, ...(i > 0 ? { objectsFrom: ids[0] } : {}) }]));
  return writeConfig(dir, services, storageDir, { file: "overshoot.capnp" });
}
