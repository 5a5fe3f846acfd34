/**
 * The pre-counting overshoot, measured (SPEC section 6; README "Edge
 * pre-counting, block cache and coalescing" derives overshoot ≤ E × f × Q).
 * One workerd of its own runs E copies of the floodgate bundle as separate
 * services ("edge-1" … "edge-E"), so each is its own isolate with its own
 * pre-counting table, and all of them share edge-1's Durable Object
 * namespaces, so they count against the same CounterObject, as isolates in
 * different colos would. A seeded trace of one fresh key, spread over the
 * edges with several requests in flight on each, runs to 3 × the limit;
 * every 200 beyond the limit is overshoot. Then, on a second key left under
 * the limit, every edge is asked once 2 × sync_ms after traffic stopped,
 * to see that its view agrees with the object's count (convergence).
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { join, relative } from "node:path";
import { seededRandom, seedOf } from "./random.mjs";
import { capnpText, freePort, startWorkerd } from "./workerd.mjs";
import { PRECOUNT_SHARE } from "../../src/edge/precount.ts";

const RULES = new URL("../rules/bench.json", import.meta.url);

/** Paths in bench/rules/bench.json (fixed window, precount): full runs and `--quick`. */
const PATHS = { full: "/sharded/precount-overshoot", quick: "/sharded/precount-overshoot-quick" };

/** Requests in flight per edge: enough that every edge keeps deciding locally while the others do too. */
const IN_FLIGHT_PER_EDGE = 8;

/** The trace runs to this many times the limit, well past the point where every edge has learned the key is full. */
const TRAFFIC_FACTOR = 3;

// A failed-open 200 would count as an allow and inflate the overshoot; closed
// turns a slow object into a 503 we count apart, and the long timeout makes
// one unlikely on a shared 2-core machine.
const VARS = { FAILURE_MODE: "closed", DECISION_TIMEOUT_MS: "5000" };

const UNITS_MS = { second: 1_000, minute: 60_000, hour: 3_600_000, day: 86_400_000 };

/**
 * Measure the overshoot with 1, 2, 4 and 8 edges (`quick`: 2 edges and a
 * limit of 400, a few seconds). `floodgate` is `buildWorkers(…).floodgate`;
 * `workDir` gets the config, the log and the objects' storage (wiped first,
 * so the seeded keys are fresh). Returns a JSON-able result with one row
 * per edge count.
 *
 * @example
 * const built = await buildWorkers(root, join(work, "build"));
 * const overshoot = await measureOvershoot({ floodgate: built.floodgate, workDir: join(work, "overshoot"), quick, log });
 * overshoot.rows[3]; // { edges: 8, limit: 2000, allowed: 2137, overshootPercent: 6.85, boundPercent: 100, withinBound: true, … }
 */
export async function measureOvershoot({ floodgate, workDir, quick = false, log = () => {} }) {
  const path = quick ? PATHS.quick : PATHS.full;
  const { limit, windowMs, syncMs } = ruleOf(path);
  const edgeCounts = quick ? [2] : [1, 2, 4, 8];
  const storageDir = join(workDir, "storage");
  rmSync(storageDir, { recursive: true, force: true });
  const { path: configPath, ports } = await writeOvershootConfig(workDir, floodgate, Math.max(...edgeCounts), storageDir);
  const server = await startWorkerd(configPath, ports, join(workDir, "workerd.log"));
  log(
    `overshoot: workerd (pid ${server.pid}) with ${Object.keys(ports).length} edges sharing one CounterObject namespace; ${path}, limit ${limit}, sync ${syncMs} ms`,
  );
  const agents = Object.keys(ports).map(() => new Agent({ keepAlive: true, maxSockets: IN_FLIGHT_PER_EDGE }));
  const rows = [];
  try {
    for (const edges of edgeCounts) {
      const row = await measureEdges({ edges, ports: Object.values(ports), agents, path, limit, windowMs, syncMs });
      rows.push(row);
      log(
        `overshoot: ${edges} edge(s): ${row.allowed} of ${row.requests} allowed, limit ${limit}: overshoot ${row.overshootPercent.toFixed(2)} % (bound ${row.boundPercent} %)`,
      );
    }
  } finally {
    for (const agent of agents) agent.destroy();
    await server.stop();
    rmSync(storageDir, { recursive: true, force: true });
  }
  return { path, limit, windowMs, syncMs, share: PRECOUNT_SHARE, inFlightPerEdge: IN_FLIGHT_PER_EDGE, requestsPerRun: TRAFFIC_FACTOR * limit, rows };
}

/**
 * The result as a markdown table: overshoot in % of the limit beside the
 * README's bound E × f (f = 1/8), and whether every edge had converged
 * 2 × sync_ms after traffic stopped.
 *
 * @example
 * console.log(printOvershoot(await measureOvershoot({ floodgate, workDir, quick: true })));
 */
export function printOvershoot(result) {
  const lines = [
    `Pre-counting overshoot: ${result.path} (fixed window, ${result.limit.toLocaleString("en-US")} per ${windowText(result.windowMs)}, sync ${result.syncMs} ms), ` +
      `${result.requestsPerRun.toLocaleString("en-US")} requests of one key spread over E isolates, ${result.inFlightPerEdge} in flight per isolate`,
    "",
    "| isolates (E) | limit | allowed | overshoot | overshoot, % of limit | bound E/8, % | within bound | answers exact 2 × sync_ms after traffic stops |",
    "|---:|---:|---:|---:|---:|---:|:---:|:---:|",
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
      `| ${r.edges} | ${r.limit} | ${r.allowed}${failed} | ${r.overshoot} | ${r.overshootPercent.toFixed(2)} % | ${r.boundPercent} % | ${r.withinBound ? "yes" : "**no**"} | ${converged} |`,
    );
  }
  lines.push(
    "",
    `Overshoot: 200s beyond the limit. Views: on a second key left at half its limit, each isolate in turn answers one more request ${result.rows[0]?.convergence.waitedMs ?? 2 * result.syncMs} ms after the last answer; its X-RateLimit-Remaining must be exact (all allowed hits and the probes before it counted).`,
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
    const overshootPercent = (overshoot / limit) * 100;
    const boundPercent = edges * PRECOUNT_SHARE * 100;
    return {
      edges,
      limit,
      requests: counts.requests,
      allowed: counts.allowed,
      rejected: counts.rejected,
      failed: counts.failed,
      overshoot,
      overshootPercent,
      boundPercent,
      withinBound: overshootPercent <= boundPercent,
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

const text = capnpText;

/**
 * Cap'n Proto text for edge `n`. Edge 1 declares the Durable Object
 * namespaces; the others bind the same ones with `serviceName = "edge-1"`
 * (workerd.capnp, DurableObjectNamespaceDesignator), so every edge reaches
 * the same objects while keeping its own isolate.
 */
function edgeConfig(n, worker, configDir) {
  const modules = worker.modules.map((m) => `(name = ${text(m)}, esModule = embed ${text(relative(configDir, join(worker.dir, m)))})`);
  const home = n === 1 ? "" : `, serviceName = "edge-1"`;
  const bindings = [
    ...Object.entries({ ...worker.vars, ...VARS }).map(([name, value]) => `(name = ${text(name)}, text = ${text(value)})`),
    ...worker.durableObjects.map((d) => `(name = ${text(d.binding)}, durableObjectNamespace = (className = ${text(d.className)}${home}))`),
  ];
  const classes = [...new Set(worker.durableObjects.map((d) => d.className))];
  const namespaces = classes.map((c) => `(className = ${text(c)}, uniqueKey = ${text(`overshoot-${c}`)}, enableSql = ${worker.sqliteClasses.has(c)})`);
  return [
    `const edge${n}Worker :Workerd.Worker = (`,
    `  modules = [${modules.join(", ")}],`,
    `  compatibilityDate = ${text(worker.compatibilityDate)},`,
    `  compatibilityFlags = [${worker.compatibilityFlags.map(text).join(", ")}],`,
    `  bindings = [${bindings.join(", ")}],`,
    ...(n === 1 && classes.length > 0 ? [`  durableObjectNamespaces = [${namespaces.join(", ")}],`, `  durableObjectStorage = (localDisk = "do-disk"),`] : []),
    // Nothing here calls out (no ORIGIN_URL: allowed requests get the echo); keep any stray fetch on this machine.
    `  globalOutbound = "loopback-only",`,
    `);`,
  ].join("\n");
}

/**
 * Write the config of `edges` edges into `dir` and return its path and the
 * port of each edge ("edge-1" → port, in order).
 *
 * @example
 * const { path, ports } = await writeOvershootConfig(workDir, built.floodgate, 4, join(workDir, "storage"));
 */
export async function writeOvershootConfig(dir, worker, edges, storageDir) {
  mkdirSync(dir, { recursive: true });
  mkdirSync(storageDir, { recursive: true });
  const ids = Array.from({ length: edges }, (_, i) => `edge-${i + 1}`);
  const ports = {};
  for (const id of ids) ports[id] = await freePort();
  const lines = [
    `using Workerd = import "/workerd/workerd.capnp";`,
    `const config :Workerd.Config = (`,
    `  services = [`,
    ...ids.map((id, i) => `    (name = ${text(id)}, worker = .edge${i + 1}Worker),`),
    `    (name = "do-disk", disk = (path = ${text(storageDir)}, writable = true)),`,
    `    (name = "loopback-only", network = (allow = ["local"])),`,
    `  ],`,
    `  sockets = [`,
    ...ids.map((id) => `    (name = ${text(id)}, address = ${text(`127.0.0.1:${ports[id]}`)}, http = (), service = ${text(id)}),`),
    `  ],`,
    `);`,
    ...ids.map((_, i) => edgeConfig(i + 1, worker, dir)),
  ];
  const path = join(dir, "overshoot.capnp");
  writeFileSync(path, `${lines.join("\n")}\n`);
  return { path, ports };
}
