/**
 * What a deployment pays, counted (bench/README.md, "What a deployment
 * costs"): for per-client keys, one hot key and a key scan, every request
 * from Frankfurt (request.cf: region weur, so global limits go through the
 * regional relay objects, as on Cloudflare), spread over several isolates
 * sharing one set of objects (one workerd, the first service declaring the
 * objects). Per Durable Object class, the bench build's tally
 * (bench/workers/object-tally.ts) gives requests, alarms, SQLite rows read
 * and written, and active time; workerd's process CPU over the requests
 * stands for the Worker's CPU time (an upper bound: the objects' CPU is in
 * it too). Each scenario gets a fresh workerd, and after its load a quiet
 * wait (SETTLE_MS) in which the objects' alarms (quiet writes, the relay's
 * last syncs) and the isolates' last metrics sends come and are counted.
 * Turned into $ per million requests on Workers Paid, and requests a day
 * within Workers Free's quotas, at lib/prices.mjs.
 */
import { rmSync } from "node:fs";
import { Agent, request } from "node:http";
import { join } from "node:path";
import { processCpuTicks, TICKS_PER_SECOND } from "./cpu.mjs";
import { freeRequestsPerDay, paidPerMillion, PRICES } from "./prices.mjs";
import { startWorkerd, writeConfig } from "./workerd.mjs";

const CF_HEADER = "cf-blob";
const FRANKFURT = JSON.stringify({ colo: "FRA", country: "DE", continent: "EU" });

/** The three scenarios: paths of bench/rules/bench.json (sharded placement, 64 shards). */
export const COST_SCENARIOS = [
  { id: "per-client", title: "per-client keys", path: "/sharded/recurring-1m", key: (i, run, clients) => `client-${run}-${(i * 7919) % clients}` },
  { id: "hot-key", title: "one hot key, every isolate", path: "/sharded/hot-key-auto", key: (_, run) => `hot-${run}` },
  { id: "key-scan", title: "key scan (each request a new key)", path: "/sharded/scan-1m", key: (i, run) => `scan-${run}-${i}` },
];

/** Past the counter objects' quiet write (5 s after the last call) and the relay's lease give-back (5 s idle, then a sync within 1 s). */
export const SETTLE_MS = 6_500;

/** A path of bench/rules/bench.json with no limit: warms an isolate (bundle, rules) without touching a counter object. */
const WARM_PATH = "/sharded/no-counter";

/** Requests a scenario's load goes on for past its seconds, if it has not had them (up to MAX_LOAD_FACTOR × its seconds). */
const MIN_REQUESTS = 300;
const MAX_LOAD_FACTOR = 3;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function get(agent, port, path, key) {
  return new Promise((resolve) => {
    const req = request({ host: "127.0.0.1", port, path, agent, headers: { "x-api-key": key, [CF_HEADER]: FRANKFURT } }, (res) => {
      res.resume();
      // The status, and how it was decided (e.g. "200 local": FAILURE_MODE answered because the objects did not in time).
      const decision = res.headers["x-ratelimit-decision"];
      res.on("end", () => resolve(decision ? `${res.statusCode} ${decision}` : String(res.statusCode)));
      res.on("error", () => resolve("failed"));
    });
    req.on("error", () => resolve("failed"));
    req.end();
  });
}

const tallyOf = async (port) => (await fetch(`http://127.0.0.1:${port}/__bench/objects`)).json();

function delta(before, after) {
  const out = {};
  for (const [cls, t] of Object.entries(after)) {
    const b = before[cls] ?? {};
    out[cls] = Object.fromEntries(Object.entries(t).map(([k, v]) => [k, v - (b[k] ?? 0)]));
  }
  return out;
}

/** One scenario in a fresh workerd: load for `seconds`, then SETTLE_MS quiet; the tally's difference. */
async function runScenario({ floodgate, workDir, scenario, edges, inFlight, seconds, clients }) {
  const dir = join(workDir, scenario.id);
  const storageDir = join(dir, "storage");
  rmSync(dir, { recursive: true, force: true });
  const ids = Array.from({ length: edges }, (_, i) => `edge-${i + 1}`);
  const services = Object.fromEntries(ids.map((id, i) => [id, { worker: floodgate, vars: {}, ...(i > 0 ? { objectsFrom: ids[0] } : {}) }]));
  const { path, ports } = await writeConfig(dir, services, storageDir, { cfBlobHeader: CF_HEADER });
  const server = await startWorkerd(path, ports, join(dir, "workerd.log"), { inspectorPort: null });
  const portList = ids.map((id) => ports[id]);
  const agents = portList.map(() => new Agent({ keepAlive: true, maxSockets: inFlight }));
  const run = Date.now().toString(36);
  try {
    return await loadAndCount({ server, portList, agents, scenario, run, inFlight, seconds, clients });
  } catch (error) {
    await server.stop();
    throw error;
  } finally {
    for (const agent of agents) agent.destroy();
  }
}

/** Warm every isolate up, then load and wait; what the objects and the process did meanwhile. */
async function loadAndCount({ server, portList, agents, scenario, run, inFlight, seconds, clients }) {
  // Every isolate compiles the bundle on its first request: one each, before anything is counted, on a path no counter
  // object takes part in (so no object's alarm of the warm-up falls in the count); its first metrics send goes at once.
  await Promise.all(portList.map((port, e) => get(agents[e], port, WARM_PATH, `warm-${run}-${e}`)));
  await sleep(500);
  const before = await tallyOf(portList[0]);
  const ticksBefore = processCpuTicks(server.pid);
  const statuses = {};
  let requests = 0;
  // For `seconds`, or longer (at most MAX_LOAD_FACTOR times) until MIN_REQUESTS were answered: a slow machine still gives
  // every key recurring (per-client keys) and per-request figures not made of a handful of requests.
  const startedAt = Date.now();
  const going = () => Date.now() - startedAt < seconds * 1000 || (answered < MIN_REQUESTS && Date.now() - startedAt < seconds * 1000 * MAX_LOAD_FACTOR);
  let answered = 0;
  await Promise.all(
    portList.flatMap((port, e) =>
      Array.from({ length: inFlight }, async () => {
        while (going()) {
          const status = await get(agents[e], port, scenario.path, scenario.key(requests++, run, clients));
          answered += 1;
          statuses[status] = (statuses[status] ?? 0) + 1;
        }
      }),
    ),
  );
  const loadSeconds = (Date.now() - startedAt) / 1000;
  await sleep(SETTLE_MS);
  const cpuMs = ((processCpuTicks(server.pid) - ticksBefore) / TICKS_PER_SECOND) * 1000;
  const byClass = delta(before, await tallyOf(portList[0]));
  return { requests, statuses, loadSeconds, rps: requests / loadSeconds, cpuMs, byClass, server };
}

/** Per request: what a gateway request used, summed over classes; and the $ and Free figures. */
export function costOfScenario(measured) {
  const n = measured.requests;
  const sum = (k) => Object.values(measured.byClass).reduce((s, t) => s + (t[k] ?? 0), 0);
  const perRequest = {
    workerRequests: 1,
    cpuMs: measured.cpuMs / n,
    objectRequests: (sum("requests") + sum("alarms")) / n,
    gbSeconds: ((sum("activeMs") / 1000) * PRICES.objectGb) / n,
    rowsRead: sum("rowsRead") / n,
    // An alarm set is stored in the object's storage: priced as a row written (an upper bound; bench/README.md).
    rowsWritten: (sum("rowsWritten") + sum("alarmSets")) / n,
    queueOperations: 0,
  };
  const classes = Object.fromEntries(
    Object.entries(measured.byClass).map(([cls, t]) => [
      cls,
      {
        requestsPer1000: ((t.requests + t.alarms) / n) * 1000,
        alarmsPer1000: (t.alarms / n) * 1000,
        rowsWrittenPer1000: (t.rowsWritten / n) * 1000,
        rowsReadPer1000: (t.rowsRead / n) * 1000,
        alarmSetsPer1000: (t.alarmSets / n) * 1000,
        activeMsPer1000: (t.activeMs / n) * 1000,
        instances: t.instances,
        dollarsPerMillion: paidPerMillion({
          objectRequests: (t.requests + t.alarms) / n,
          gbSeconds: ((t.activeMs / 1000) * PRICES.objectGb) / n,
          rowsRead: t.rowsRead / n,
          rowsWritten: (t.rowsWritten + t.alarmSets) / n,
        }),
      },
    ]),
  );
  return { perRequest, classes, paidDollarsPerMillion: paidPerMillion(perRequest), free: freeRequestsPerDay(perRequest) };
}

/**
 * Every cost scenario, one after another, each in its own workerd.
 *
 * @example
 * const costs = await measureObjectCosts({ floodgate: built.floodgate, workDir, quick: true, log });
 */
export async function measureObjectCosts({ floodgate, workDir, quick, log = () => {}, noteStopped = () => {} }) {
  const edges = quick ? 4 : 8;
  const inFlight = quick ? 4 : 8;
  const seconds = quick ? 3 : 10;
  const clients = quick ? 50 : 1_000;
  const scenarios = [];
  for (const scenario of COST_SCENARIOS) {
    const measured = await runScenario({ floodgate, workDir, scenario, edges, inFlight, seconds, clients });
    noteStopped(`cost/${scenario.id}`, await measured.server.stop());
    delete measured.server;
    const cost = costOfScenario(measured);
    log(
      `cost: ${scenario.id}: ${measured.requests} requests (${Math.round(measured.rps)}/s over ${edges} isolates), ` +
        `${cost.perRequest.objectRequests.toFixed(3)} object requests and ${(cost.perRequest.rowsWritten * 1000).toFixed(1)} rows written (alarms set included) per 1,000: $${cost.paidDollarsPerMillion.toFixed(3)}/M on Paid`,
    );
    const title = scenario.id === "per-client" ? `${scenario.title} (${clients.toLocaleString("en-US")} clients)` : scenario.title;
    scenarios.push({ id: scenario.id, title, path: scenario.path, ...measured, ...cost });
  }
  return {
    edges,
    inFlightPerEdge: inFlight,
    loadSeconds: seconds,
    settleMs: SETTLE_MS,
    from: "FRA (region weur)",
    prices: { readOn: PRICES.readOn, pages: PRICES.pages },
    scenarios,
  };
}

const fmt = (x, digits = 2) => (Number.isFinite(x) ? x.toFixed(digits) : "–");
const quota = {
  workerRequests: "Worker requests",
  objectRequests: "object requests",
  gbSeconds: "duration",
  rowsRead: "rows read",
  rowsWritten: "rows written",
  none: "none",
};

/**
 * The cost tables in Markdown: per scenario and class, then the all-in $ per
 * million on Workers Paid and the requests a day Workers Free carries.
 *
 * @example
 * console.log(printObjectCosts(results.objectCosts));
 */
export function printObjectCosts(costs) {
  const lines = [
    `What a deployment costs (counted: ${costs.edges} isolates × ${costs.inFlightPerEdge} in flight for ${costs.loadSeconds} s or until ${MIN_REQUESTS} requests (at most ${MAX_LOAD_FACTOR * costs.loadSeconds} s), every request from ${costs.from}, then ${costs.settleMs / 1000} s quiet; prices read ${costs.prices.readOn}: bench/lib/prices.mjs):`,
    "",
    "| scenario | class | objects started | requests / 1,000 req (alarms included) | alarms / 1,000 | SQL rows written / 1,000 | alarms set / 1,000 | rows read / 1,000 | active ms / 1,000 | $ / 1M on Paid |",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
  ];
  for (const s of costs.scenarios)
    for (const [cls, c] of Object.entries(s.classes))
      lines.push(
        `| ${s.title} | ${cls} | ${c.instances} | ${fmt(c.requestsPer1000, 1)} | ${fmt(c.alarmsPer1000, 1)} | ${fmt(c.rowsWrittenPer1000, 1)} | ${fmt(c.alarmSetsPer1000, 1)} | ${fmt(c.rowsReadPer1000, 1)} | ${fmt(c.activeMsPer1000, 0)} | $${fmt(c.dollarsPerMillion, 3)} |`,
      );
  lines.push(
    "",
    "| scenario | requests | req/s | CPU ms / req (workerd, upper bound) | object requests / req | $ / 1M all-in on Paid (past included) | Free: requests a day within quota | first Free quota out |",
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ...costs.scenarios.map(
      (s) =>
        `| ${s.title} | ${s.requests} | ${Math.round(s.rps)} | ${fmt(s.perRequest.cpuMs, 3)} | ${fmt(s.perRequest.objectRequests, 3)} | $${fmt(s.paidDollarsPerMillion, 3)} | ${s.free.requests.toLocaleString("en-US")} | ${quota[s.free.first]} |`,
    ),
  );
  return lines.join("\n");
}
