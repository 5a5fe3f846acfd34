/**
 * What a deployment pays, counted in production's shape (bench/README.md,
 * "What a deployment costs"): every request carries `request.cf` from one
 * of three colos in three regions (the simulated planet of
 * bench/workers/planet.ts: IAD/enam, FRA/weur, SIN/apac, with its
 * round-trip matrix on every object call), so global limits go through the
 * regional relay as on Cloudflare. Several isolates per region share one
 * set of objects (one workerd, the first service declaring them). Three
 * workloads: thin keys (thousands of keys, each a request every 5–10 s
 * from its region, open loop), one hot key over many isolates (64 in a
 * full run, closed loop), and a key scan (a new key per request, open
 * loop); and the thin keys again on the direct path (no `request.cf`, no
 * distance), the labelled control. Per Durable Object class, at the callee
 * (bench/workers/object-tally.ts): requests, alarms, SQLite rows read and
 * written, alarms set (each priced as a row written), active time, stored
 * bytes (`ctx.storage.sql.databaseSize`) and the most requests one object
 * took in a second; plus Worker requests and workerd's process CPU (an
 * upper bound of the Worker's: the objects' CPU is in it). Each workload
 * gets a fresh workerd and, after its load, a quiet wait (SETTLE_MS) whose
 * alarms and syncs are counted. Priced at lib/prices.mjs.
 */
import { rmSync } from "node:fs";
import { Agent, request } from "node:http";
import { join } from "node:path";
import { PLANET, PLANET_REGIONS } from "../workers/planet.ts";
import { processCpuTicks, TICKS_PER_SECOND } from "./cpu.mjs";
import { freeRequestsPerDay, paidPerMillion, PRICES } from "./prices.mjs";
import { seededRandom, seedOf } from "./random.mjs";
import { startWorkerd, writeConfig } from "./workerd.mjs";

/**
 * The workloads, in the order they run (paths of bench/rules/bench.json, sharded placement, 64 shards).
 *
 * @example
 * COST_SCENARIOS.map((s) => s.id); // ["thin", "warm", "hot-key", "key-scan", "thin-direct"]
 */
export const COST_SCENARIOS = [
  { id: "thin", title: "thin keys", kind: "thin", path: "/sharded/recurring-1m", regions: true },
  // Keys each a request every 1–2 s: warm in their region (docs/placement.md, "Relay only what pays"), so relayed.
  { id: "warm", title: "warm keys", kind: "thin", sizes: "warm", path: "/sharded/recurring-1m", regions: true },
  { id: "hot-key", title: "one hot key", kind: "hot", path: "/sharded/hot-key-auto", limitedPath: "/sharded/hot-key-auto-limit", limit: 1_000, regions: true },
  { id: "key-scan", title: "key scan (a new key per request)", kind: "scan", path: "/sharded/scan-1m", regions: true },
  { id: "thin-direct", title: "control: thin keys, direct path (no request.cf)", kind: "thin", path: "/sharded/recurring-1m", regions: false },
];

/**
 * Sizes: thin keys (`keys`, each a request every `minGapS`–`maxGapS` s for
 * `seconds`), the key scan (`rate` new keys a second for `seconds`), the hot
 * key (`isolates` isolates × `inFlight` for `seconds`, then, in a full run,
 * its limited twin run past its limit for the overshoot).
 */
const SIZES = {
  full: {
    isolatesPerRegion: 3,
    thin: { keys: 2_000, seconds: 40, minGapS: 5, maxGapS: 10 },
    warm: { keys: 300, seconds: 40, minGapS: 1, maxGapS: 2 },
    scan: { rate: 150, seconds: 20 },
    hot: { isolates: 64, inFlight: 2, seconds: 10, warmupSeconds: 40, overshoot: true },
  },
  quick: {
    isolatesPerRegion: 1,
    // The full run's shapes, fewer keys and shorter: thin keys as sparse as there (never warm), warm ones relayed.
    thin: { keys: 600, seconds: 12, minGapS: 5, maxGapS: 10 },
    warm: { keys: 100, seconds: 12, minGapS: 1, maxGapS: 2 },
    scan: { rate: 30, seconds: 5 },
    // 64 isolates as in the full run (the issue's shape), warmed until hot, a shorter count.
    hot: { isolates: 64, inFlight: 2, seconds: 4, warmupSeconds: 20, overshoot: true },
  },
};

/** Past the counter objects' quiet write (5 s after the last call) and the relay's lease give-back (5 s idle, then a sync within 1 s). */
export const SETTLE_MS = 6_500;

/**
 * Every request decided by the objects, as the geography's (lib/geography.mjs): a local decision (FAILURE_MODE=local,
 * past the 1 s timeout on a loaded machine) would add its debt's calls and hide the relay's; closed with a long
 * timeout makes a slow object a counted failure instead.
 */
const VARS = { FAILURE_MODE: "closed", DECISION_TIMEOUT_MS: "5000" };

/** A path of bench/rules/bench.json with no limit: warms an isolate (bundle, rules) without touching a counter object. */
const WARM_PATH = "/sharded/no-counter";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function get(agent, port, path, key) {
  return new Promise((resolve) => {
    const req = request({ host: "127.0.0.1", port, path, agent, headers: { "x-api-key": key } }, (res) => {
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

/** The tally's change between two readings; `peakPerSecond` and `storedBytes` are levels, taken as they are after. */
function delta(before, after) {
  const out = {};
  for (const [cls, t] of Object.entries(after)) {
    const b = before[cls] ?? {};
    out[cls] = Object.fromEntries(Object.entries(t).map(([k, v]) => [k, k === "peakPerSecond" || k === "storedBytes" ? v : v - (b[k] ?? 0)]));
  }
  return out;
}

/** The isolates of a workload: `count` floodgate services, region by region in turn (A, B, C, A, …), or with no region (the control). */
function isolatesOf(count, regions) {
  return Array.from({ length: count }, (_, i) => ({ id: `edge-${i + 1}`, region: regions ? PLANET_REGIONS[i % 3] : undefined }));
}

/** Open-loop events `[atMs, region index, key]` of the thin keys or the key scan, in time order. */
export function costEvents(scenario, size, run) {
  const random = seededRandom(seedOf(`cost-${scenario.id}-${run}`));
  const events = [];
  if (scenario.kind === "thin") {
    const { keys, seconds, minGapS, maxGapS } = size[scenario.sizes ?? "thin"];
    for (let k = 0; k < keys; k++) {
      const gap = () => (minGapS + random() * (maxGapS - minGapS)) * 1000;
      // Key k is pinned to region k mod 3 (anycast), from a random phase.
      for (let at = random() * maxGapS * 1000; at < seconds * 1000; at += gap()) events.push([at, k % 3, `thin-${run}-${k}`]);
    }
  } else {
    const { rate, seconds } = size.scan;
    for (let i = 0; i < rate * seconds; i++) events.push([(i / rate) * 1000, i % 3, `scan-${run}-${i}`]);
  }
  return events.sort((a, b) => a[0] - b[0]);
}

/** Send `events` at their times (each to a random isolate of its region); the statuses. */
async function openLoop(events, byRegion, path) {
  const statuses = {};
  const started = performance.now();
  const random = seededRandom(7);
  const inFlight = [];
  for (const [at, r, key] of events) {
    const wait = at - (performance.now() - started);
    if (wait > 1) await sleep(wait);
    const list = byRegion[r] ?? byRegion[0];
    const target = list[Math.floor(random() * list.length)];
    inFlight.push(
      get(target.agent, target.port, path, key).then((status) => {
        statuses[status] = (statuses[status] ?? 0) + 1;
      }),
    );
  }
  await Promise.all(inFlight);
  return statuses;
}

/**
 * Keep `inFlight` requests of `key` busy on every isolate for `seconds` (or until `maxRequests` were sent, or `stop()`
 * says so); the statuses, filled in as answers come (`statuses` may be passed in to read them meanwhile).
 */
async function closedLoop(targets, path, key, inFlight, seconds, maxRequests = Infinity, stop = () => false, statuses = {}) {
  const until = Date.now() + seconds * 1000;
  let sent = 0;
  await Promise.all(
    targets.flatMap((target) =>
      Array.from({ length: inFlight }, async () => {
        while (Date.now() < until && sent < maxRequests && !stop()) {
          sent += 1;
          const status = await get(target.agent, target.port, path, key);
          statuses[status] = (statuses[status] ?? 0) + 1;
        }
      }),
    ),
  );
  return statuses;
}

const answered = (statuses) => Object.values(statuses).reduce((a, b) => a + b, 0);

/** Counter object calls (requests and alarms of both counter classes) in a tally. */
const counterCallsOf = (tally) => COUNTER_CLASSES.reduce((s, cls) => s + (tally[cls]?.requests ?? 0) + (tally[cls]?.alarms ?? 0), 0);

/** Counter calls a request at most in a second for the hot key to count as hot (the issue's 0.25, less what the rest costs). */
export const HOT_CALLS_PER_REQUEST = 0.2;

/** For `seconds`, each second's requests answered (from `statuses`, filled in meanwhile) and counter calls (the tally). */
async function perSecond(port, statuses, seconds) {
  const out = [];
  let last = { calls: counterCallsOf(await tallyOf(port)), requests: answered(statuses) };
  for (let s = 0; s < seconds; s++) {
    await sleep(1000);
    const now = { calls: counterCallsOf(await tallyOf(port)), requests: answered(statuses) };
    out.push({ requests: now.requests - last.requests, calls: now.calls - last.calls });
    last = now;
  }
  return out;
}

/**
 * Warm the hot key up until it is hot (docs/placement.md, "Hot keys at the region's copy"): the same closed loop, each
 * second the counter calls it took per request read from the tally, until a second brings at most
 * HOT_CALLS_PER_REQUEST (two in a row) or `maxSeconds` pass. What it took, per second; nothing of it is in the count.
 */
async function warmUntilHot(targets, path, key, inFlight, maxSeconds, port) {
  const statuses = {};
  let hot = false;
  const seconds = [];
  const loop = closedLoop(targets, path, key, inFlight, maxSeconds, Infinity, () => hot, statuses);
  const startedAt = Date.now();
  let last = { calls: counterCallsOf(await tallyOf(port)), requests: 0 };
  const firstCalls = last.calls;
  let quiet = 0;
  while (!hot && Date.now() - startedAt < maxSeconds * 1000) {
    await sleep(1000);
    const now = { calls: counterCallsOf(await tallyOf(port)), requests: answered(statuses) };
    const second = { requests: now.requests - last.requests, calls: now.calls - last.calls };
    seconds.push(second);
    last = now;
    quiet = second.requests > 0 && second.calls <= HOT_CALLS_PER_REQUEST * second.requests ? quiet + 1 : 0;
    hot = quiet >= 2;
  }
  hot = true;
  await loop;
  const requests = answered(statuses);
  const calls = counterCallsOf(await tallyOf(port)) - firstCalls;
  return { hot: quiet >= 2, seconds: (Date.now() - startedAt) / 1000, requests, calls, perSecond: seconds };
}
const allowedOf = (statuses) => statuses["200"] ?? 0;

/** One workload in a fresh workerd: warm every isolate, load, SETTLE_MS quiet; what the objects and the process did. */
async function runScenario({ floodgate, workDir, scenario, size }) {
  const dir = join(workDir, scenario.id);
  rmSync(dir, { recursive: true, force: true });
  const count = scenario.kind === "hot" ? size.hot.isolates : 3 * size.isolatesPerRegion;
  const isolates = isolatesOf(count, scenario.regions);
  const services = Object.fromEntries(
    isolates.map(({ id, region }, i) => [
      id,
      { worker: floodgate, vars: { ...VARS, ...(region ? { BENCH_REGION: region } : {}) }, ...(i > 0 ? { objectsFrom: isolates[0].id } : {}) },
    ]),
  );
  const { path, ports } = await writeConfig(dir, services, join(dir, "storage"));
  // 64 isolates start slowly on a busy machine.
  const server = await startWorkerd(path, ports, join(dir, "workerd.log"), { inspectorPort: null, startMs: 120_000 });
  const targets = isolates.map(({ id, region }) => ({ port: ports[id], region, agent: new Agent({ keepAlive: true, maxSockets: 64 }) }));
  const run = Date.now().toString(36);
  try {
    // Every isolate compiles the bundle on its first request: one each, before anything is counted, on a path no
    // counter object takes part in.
    await Promise.all(targets.map((t, i) => get(t.agent, t.port, WARM_PATH, `warm-${run}-${i}`)));
    await sleep(500);
    // The hot key is counted once hot: its warm-up (strong calls until its copies call it hot) is reported apart.
    const warmup =
      scenario.kind === "hot"
        ? await warmUntilHot(targets, scenario.path, `hot-${run}`, size.hot.inFlight, size.hot.warmupSeconds, targets[0].port)
        : undefined;
    const before = await tallyOf(targets[0].port);
    const ticksBefore = processCpuTicks(server.pid);
    const startedAt = Date.now();
    let statuses;
    let hotSeconds;
    if (scenario.kind === "hot") {
      // Each counted second's requests and counter calls too: whether the key stayed hot through the count.
      statuses = {};
      const loop = closedLoop(targets, scenario.path, `hot-${run}`, size.hot.inFlight, size.hot.seconds, Infinity, () => false, statuses);
      hotSeconds = await perSecond(targets[0].port, statuses, size.hot.seconds);
      await loop;
    } else {
      const byRegion = [0, 1, 2].map((r) => targets.filter((t) => t.region === undefined || t.region === PLANET_REGIONS[r]));
      statuses = await openLoop(costEvents(scenario, size, run), byRegion, scenario.path);
    }
    const loadSeconds = (Date.now() - startedAt) / 1000;
    await sleep(SETTLE_MS);
    const cpuMs = ((processCpuTicks(server.pid) - ticksBefore) / TICKS_PER_SECOND) * 1000;
    const byClass = delta(before, await tallyOf(targets[0].port));
    const requests = answered(statuses);
    const measured = {
      requests,
      statuses,
      loadSeconds,
      rps: requests / loadSeconds,
      cpuMs,
      byClass,
      isolates: count,
      ...(warmup ? { warmup, hotSeconds } : {}),
    };
    if (scenario.kind === "hot" && size.hot.overshoot) {
      // The limited twin, run past its limit by a fifth: allowed − limit is the overshoot.
      const limited = await closedLoop(targets, scenario.limitedPath, `hot-limit-${run}`, size.hot.inFlight, 120, Math.ceil(scenario.limit * 1.2));
      measured.overshoot = {
        limit: scenario.limit,
        offered: answered(limited),
        allowed: allowedOf(limited),
        statuses: limited,
        overshoot: Math.max(0, allowedOf(limited) - scenario.limit),
      };
    }
    return { ...measured, server };
  } catch (error) {
    await server.stop();
    throw error;
  } finally {
    for (const t of targets) t.agent.destroy();
  }
}

const COUNTER_CLASSES = ["CounterObject", "CounterObject (regional)"];

/**
 * How long the bytes stored at the end of a workload are priced for after it: an object holding nothing deletes its
 * storage once it has had no call for DELETE_IDLE_MS (60 s, src/durable/counters/counter-object.ts), after its last
 * counter went idle (a window of at most a minute here). Metrics and rules objects keep theirs, but at a level that
 * does not grow with requests.
 */
export const STORAGE_TAIL_S = 120;

/** Seconds in a month (storage is billed per GB-month, by the average stored). */
export const MONTH_S = (365.25 / 12) * 24 * 3600;

/**
 * Per request: what a gateway request used, summed over classes; the $ and Free figures; the hot-key figures.
 * Storage is priced for as long as it is held, as billed (GB-months of the average stored): the level after the
 * workload over its load, the quiet wait and STORAGE_TAIL_S, per request served (`storedBytes` stays the level, per
 * request, for the tables).
 */
export function costOfScenario(measured) {
  const n = measured.requests;
  const heldS = (measured.loadSeconds ?? 0) + SETTLE_MS / 1000 + STORAGE_TAIL_S;
  const sum = (k) => Object.values(measured.byClass).reduce((s, t) => s + (t[k] ?? 0), 0);
  const perRequest = {
    workerRequests: 1,
    cpuMs: measured.cpuMs / n,
    objectRequests: (sum("requests") + sum("alarms")) / n,
    gbSeconds: ((sum("activeMs") / 1000) * PRICES.objectGb) / n,
    rowsRead: sum("rowsRead") / n,
    // An alarm set is stored in the object's storage: priced as a row written (bench/README.md).
    rowsWritten: (sum("rowsWritten") + sum("alarmSets")) / n,
    queueOperations: 0,
    storedBytes: sum("storedBytes") / n,
  };
  // $ per million requests for `bytes` stored per request, held heldS.
  const storageDollars = (bytes) => (bytes / 1e9) * (heldS / MONTH_S) * PRICES.paid.storageGbMonth * 1e6;
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
        storedBytesPerRequest: (t.storedBytes ?? 0) / n,
        peakPerSecond: t.peakPerSecond ?? 0,
        instances: t.instances,
        dollarsPerMillion:
          paidPerMillion({
            objectRequests: (t.requests + t.alarms) / n,
            gbSeconds: ((t.activeMs / 1000) * PRICES.objectGb) / n,
            rowsRead: t.rowsRead / n,
            rowsWritten: (t.rowsWritten + t.alarmSets) / n,
          }) + storageDollars((t.storedBytes ?? 0) / n),
      },
    ]),
  );
  const counterCalls = COUNTER_CLASSES.reduce((s, cls) => s + (measured.byClass[cls]?.requests ?? 0) + (measured.byClass[cls]?.alarms ?? 0), 0);
  const hot = {
    objectCallsPerRequest: counterCalls / n,
    maxCallsPerSecond: Math.max(0, ...COUNTER_CLASSES.map((cls) => measured.byClass[cls]?.peakPerSecond ?? 0)),
  };
  return {
    perRequest,
    classes,
    hot,
    storageDollarsPerMillion: storageDollars(perRequest.storedBytes),
    paidDollarsPerMillion: paidPerMillion(perRequest) + storageDollars(perRequest.storedBytes),
    free: freeRequestsPerDay(perRequest),
  };
}

/**
 * Every cost workload, one after another, each in its own workerd.
 *
 * @example
 * const costs = await measureObjectCosts({ floodgate: built.floodgate, workDir, quick: true, log });
 */
export async function measureObjectCosts({ floodgate, workDir, quick, only, log = () => {}, noteStopped = () => {} }) {
  const size = quick ? SIZES.quick : SIZES.full;
  const scenarios = [];
  for (const scenario of COST_SCENARIOS.filter((s) => only === undefined || only.includes(s.id))) {
    const measured = await runScenario({ floodgate, workDir, scenario, size });
    noteStopped(`cost/${scenario.id}`, await measured.server.stop());
    delete measured.server;
    const cost = costOfScenario(measured);
    log(
      `cost: ${scenario.id}: ${measured.requests} requests (${Math.round(measured.rps)}/s over ${measured.isolates} isolates), ` +
        `${cost.perRequest.objectRequests.toFixed(3)} object requests and ${cost.perRequest.rowsWritten.toFixed(3)} rows written (alarms set included) per request: $${cost.paidDollarsPerMillion.toFixed(3)}/M on Paid`,
    );
    const title =
      scenario.kind === "thin"
        ? `${scenario.title} (${size[scenario.sizes ?? "thin"].keys.toLocaleString("en-US")} keys, each every ${size[scenario.sizes ?? "thin"].minGapS}–${size[scenario.sizes ?? "thin"].maxGapS} s)`
        : scenario.kind === "hot"
          ? `${scenario.title} (${size.hot.isolates} isolates)`
          : `${scenario.title}, ${size.scan.rate}/s`;
    scenarios.push({ id: scenario.id, title, path: scenario.path, direct: !scenario.regions, ...measured, ...cost });
  }
  return {
    from: `${PLANET_REGIONS.map((r) => `${PLANET[r].cf.colo} (${PLANET[r].hint})`).join(", ")}, the bench's round-trip matrix`,
    isolatesPerRegion: size.isolatesPerRegion,
    settleMs: SETTLE_MS,
    prices: { readOn: PRICES.readOn, pages: PRICES.pages },
    scenarios,
  };
}

/** The warm-up's line: how long until hot, its requests and counter calls a request (each second's, requests/calls). */
function warmupOf(w) {
  if (w === undefined) return "–";
  const each = w.perSecond.map((x) => `${x.requests}/${x.calls}`).join(" ");
  return `${w.hot ? "hot" : "NOT hot"} after ${w.seconds.toFixed(0)} s: ${w.requests} requests, ${fmt(w.calls / Math.max(1, w.requests), 3)} counter calls each (each second, requests/calls: ${each})`;
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
 * The cost tables in Markdown: per workload and class, then per workload
 * and billed unit with the all-in $ per million on Workers Paid and the
 * requests a day Workers Free carries, then the hot-key row.
 *
 * @example
 * console.log(printObjectCosts(results.objectCosts));
 */
export function printObjectCosts(costs) {
  const lines = [
    `What a deployment costs (counted at the callee; requests from ${costs.from}; ${costs.isolatesPerRegion} isolate(s) per region, the hot key its own count; then ${costs.settleMs / 1000} s quiet; prices read ${costs.prices.readOn}; storage priced for as long as it is held, the load, the quiet wait and ${STORAGE_TAIL_S} s more (an idle object deletes its storage): bench/lib/prices.mjs):`,
    "",
    "| workload | class | objects started | requests / 1,000 req (alarms included) | alarms / 1,000 | SQL rows written / 1,000 | alarms set / 1,000 | rows read / 1,000 | active ms / 1,000 | stored bytes / req | most calls/s on one object | $ / 1M on Paid |",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
  ];
  for (const s of costs.scenarios)
    for (const [cls, c] of Object.entries(s.classes))
      lines.push(
        `| ${s.title} | ${cls} | ${c.instances} | ${fmt(c.requestsPer1000, 1)} | ${fmt(c.alarmsPer1000, 1)} | ${fmt(c.rowsWrittenPer1000, 1)} | ${fmt(c.alarmSetsPer1000, 1)} | ${fmt(c.rowsReadPer1000, 1)} | ${fmt(c.activeMsPer1000, 0)} | ${fmt(c.storedBytesPerRequest, 0)} | ${c.peakPerSecond} | $${fmt(c.dollarsPerMillion, 3)} |`,
      );
  lines.push(
    "",
    "| workload | requests | req/s | Worker requests / req | CPU ms / req (workerd, upper bound) | object requests / req | rows written / req (alarms set included) | rows read / req | GB-s / req | stored bytes / req | $ / 1M all-in on Paid (past included) | of which storage | Free: requests a day within quota | first Free quota out |",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ...costs.scenarios.map(
      (s) =>
        `| ${s.title} | ${s.requests} | ${Math.round(s.rps)} | ${fmt(s.perRequest.workerRequests, 0)} | ${fmt(s.perRequest.cpuMs, 3)} | ${fmt(s.perRequest.objectRequests, 3)} | ${fmt(s.perRequest.rowsWritten, 3)} | ${fmt(s.perRequest.rowsRead, 3)} | ${fmt(s.perRequest.gbSeconds, 5)} | ${fmt(s.perRequest.storedBytes, 0)} | $${fmt(s.paidDollarsPerMillion, 3)} | $${fmt(s.storageDollarsPerMillion, 3)} | ${s.free.requests.toLocaleString("en-US")} | ${quota[s.free.first]} |`,
    ),
  );
  const hot = costs.scenarios.find((s) => s.id === "hot-key");
  if (hot) {
    const o = hot.overshoot;
    lines.push(
      "",
      "| hot key, request.cf set | isolates | warm-up until hot (not counted) | requests counted (req/s) | counter calls / request (target ≤ 0.25) | object requests / request, every class | most calls/s on one object, warm-up included (target ≤ 1,000) | overshoot (target 0) | $ / 1M all-in |",
      "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
      `| ${hot.path} | ${hot.isolates} | ${warmupOf(hot.warmup)} | ${hot.requests} (${Math.round(hot.rps)}) | ${fmt(hot.hot.objectCallsPerRequest, 3)} | ${fmt(hot.perRequest.objectRequests, 3)} | ${hot.hot.maxCallsPerSecond} | ${o ? `${o.overshoot} (${o.allowed} allowed of ${o.offered}, limit ${o.limit}; answers ${JSON.stringify(o.statuses ?? {})})` : "–"} | $${fmt(hot.paidDollarsPerMillion, 3)} |`,
    );
    const counted = hot.hotSeconds ?? [];
    if (counted.length > 0) {
      const hotOnes = counted.filter((x) => x.requests > 0 && x.calls <= HOT_CALLS_PER_REQUEST * x.requests).length;
      lines.push(
        "",
        `Counted seconds hot (≤ ${HOT_CALLS_PER_REQUEST} counter calls a request): ${hotOnes} of ${counted.length} (requests/calls: ${counted.map((x) => `${x.requests}/${x.calls}`).join(" ")}).`,
      );
    }
    if (hot.warmup && !hot.warmup.hot)
      lines.push(
        "",
        `The hot key never got hot in ${hot.warmup.seconds.toFixed(0)} s here: its counted figures are a warm key's (a call a request), not a hot one's.`,
      );
  }
  return lines.join("\n");
}
