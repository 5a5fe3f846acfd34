/**
 * A simulated planet (bench/README.md, "Geography"): isolates in three
 * regions A, B and C (bench/workers/planet.ts), each a floodgate service of
 * its own with `BENCH_REGION` set, sharing one set of counter objects (home
 * objects in A, regional copies in their regions), every object call
 * waiting the planet's one-way delay each way; beside each, a bare worker
 * of the same region. Each workload runs in a fresh workerd, loaded open
 * loop from a separate Node process (bench/lib/geo-load.mjs), and reports
 * per region: latency added over the bare worker, overshoot and false
 * denies counted exactly per key and window, object calls per request
 * (home, regional, cross-region) and cost per million requests.
 */
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { PLANET, PLANET_REGIONS, oneWayMs } from "../workers/planet.ts";
import { costOf } from "./cost.mjs";
import { watchForeignCpu, watchProcessCpu } from "./machine.mjs";
import { seededRandom, seedOf } from "./random.mjs";
import { markdownTable } from "./report.mjs";
import { startWorkerd, writeConfig } from "./workerd.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const RULES = new URL("../rules/bench.json", import.meta.url);
const UNIT_MS = { second: 1_000, minute: 60_000, hour: 3_600_000, day: 86_400_000 };

// A failed-open 200 would count as an allow; closed with a long timeout makes a slow object a counted failure instead.
const VARS = { FAILURE_MODE: "closed", DECISION_TIMEOUT_MS: "5000" };

/**
 * The workloads, in the order they run: (i) per-client keys, (ii) API keys
 * from every region at 3 × the limit, (iii) one hot key from every region
 * at 3 × the limit; then (i) and (ii) under `"scope": "region"`, where API
 * key i is used from 1 + (i mod 3) regions.
 *
 * @example
 * GEO_WORKLOADS.map((w) => w.id); // ["clients", "api", "hot", "clients-region", "api-region"]
 */
export const GEO_WORKLOADS = [
  { id: "clients", title: "(i) per-client keys", kind: "clients", scope: "global", path: { full: "/geo/clients", quick: "/geo/clients" } },
  { id: "api", title: "(ii) API keys, 3 regions", kind: "api", scope: "global", path: { full: "/geo/api", quick: "/geo/api" } },
  { id: "hot", title: "(iii) one hot key, 3 regions", kind: "hot", scope: "global", path: { full: "/geo/hot", quick: "/geo/hot-quick" } },
  {
    id: "clients-region",
    title: "(i) per-client keys, scope region",
    kind: "clients",
    scope: "region",
    path: { full: "/geo/clients-region", quick: "/geo/clients-region" },
  },
  {
    id: "api-region",
    title: "(ii) API keys, 1–3 regions, scope region",
    kind: "api",
    scope: "region",
    path: { full: "/geo/api-region", quick: "/geo/api-region" },
  },
];

/**
 * How much of each workload: per-client keys at one request every
 * `intervalMs` each; API keys offered 3 × the limit each over `seconds`; the
 * hot key offered the limit from each region over `seconds` (its rules hold
 * the limit: 2,000, quick 300). The full run's clients ask every 4 s and
 * its API keys spread over 60 s, because one workerd thread serves every
 * region, the objects and the bare workers (bench/README.md, "Geography").
 */
const SIZES = {
  full: { clients: { keys: 1_000, seconds: 40, intervalMs: 4_000 }, api: { keys: 100, seconds: 60 }, hot: { seconds: 20 } },
  quick: { clients: { keys: 200, seconds: 4, intervalMs: 1_000 }, api: { keys: 10, seconds: 4 }, hot: { seconds: 3 } },
};

/** The bare worker gets every BARE_EVERY-th event (at the same moment as floodgate's): enough for its percentiles, less load beside floodgate's. */
const BARE_EVERY = 2;

/** A bare worker's p99 above this (ms) says the machine was overloaded during the workload (the report says so). */
const OVERLOADED_BARE_P99_MS = 100;

/** Warm-up: keys sent from A on the workload's path (so its home objects exist in A, as when a service's first users are there), and requests per service on a path with no counter. */
const WARM_KEYS = 256;
const WARM_REQUESTS = 20;

/** The one rate limit on `path` in the bench rules: its limit and window. */
function ruleOf(path) {
  const domain = JSON.parse(readFileSync(RULES, "utf8")).find((d) => d.domain === "bench-geo");
  const limit = domain.descriptors.find((d) => d.key === "path" && d.value === path)?.descriptors?.[0]?.rate_limit;
  if (!limit) throw new Error(`bench/rules/bench.json: bench-geo has no rate limit on ${path}`);
  return { limit: limit.requests_per_unit, windowMs: UNIT_MS[limit.unit] * (limit.unit_multiplier ?? 1), scope: limit.scope ?? "global" };
}

/**
 * The load's events, `[atMs, region index, key index]` sorted by time, and the key names.
 *
 * @example
 * planLoad(GEO_WORKLOADS[0], SIZES.quick.clients, { limit: 600 }, "n1").events[0]; // [3.2, 1, 217]
 */
export function planLoad(workload, size, rule, nonce) {
  const random = seededRandom(seedOf(`geo-${workload.id}-${nonce}`));
  const events = [];
  const keys = [];
  const horizon = size.seconds * 1000;
  if (workload.kind === "clients") {
    // Each key pinned to one region (as anycast does), one request every intervalMs from a random phase.
    for (let k = 0; k < size.keys; k++) {
      keys.push(`client-${nonce}-${k}`);
      for (let at = random() * size.intervalMs; at < horizon; at += size.intervalMs) events.push([at, k % 3, k]);
    }
  } else if (workload.kind === "api") {
    for (let k = 0; k < size.keys; k++) {
      keys.push(`api-${nonce}-${k}`);
      const regions = regionsOfApiKey(workload, k);
      const times = Array.from({ length: 3 * rule.limit }, () => random() * horizon).sort((a, b) => a - b);
      for (const [i, at] of times.entries()) events.push([at, regions[i % regions.length], k]);
    }
  } else {
    keys.push(`hot-${nonce}`);
    for (let r = 0; r < 3; r++) for (let i = 0; i < rule.limit; i++) events.push([random() * horizon, r, 0]);
  }
  events.sort((a, b) => a[0] - b[0]);
  return { keys, events: events.map(([at, r, k]) => [Math.round(at * 10) / 10, r, k]) };
}

/** The regions (indices) API key `k` is used from: all three, or under scope region 1 + (k mod 3) of them. */
const regionsOfApiKey = (workload, k) => (workload.scope === "region" ? Array.from({ length: 1 + (k % 3) }, (_, j) => (k + j) % 3) : [0, 1, 2]);

/** The services of one workerd: the origin, a bare worker and a floodgate isolate per region; B's and C's use A's objects. */
function servicesOf(built) {
  const list = { origin: { worker: built.origin } };
  for (const region of PLANET_REGIONS) {
    const vars = (ports) => ({ ORIGIN_URL: `http://127.0.0.1:${ports.origin}`, BENCH_REGION: region });
    list[`bare-${region}`] = { worker: built.bare, vars };
    list[`floodgate-${region}`] = {
      worker: built.floodgate,
      vars: (ports) => ({ ...vars(ports), ...VARS }),
      objectsFrom: region === "A" ? undefined : "floodgate-A",
    };
  }
  return list;
}

const getJson = async (port, path) => (await fetch(`http://127.0.0.1:${port}${path}`)).json();

/** Every floodgate service's call tally, summed (objects live in A's isolate, so their own calls are in A's). */
async function callTally(ports) {
  const sum = { calls: {}, answered: {}, unnamedObjects: 0 };
  for (const region of PLANET_REGIONS) {
    const t = await getJson(ports[`floodgate-${region}`], "/__bench/geo");
    for (const [k, n] of Object.entries(t.calls)) sum.calls[k] = (sum.calls[k] ?? 0) + n;
    for (const [k, byMs] of Object.entries(t.answered)) {
      const into = (sum.answered[k] ??= {});
      for (const [ms, n] of Object.entries(byMs)) into[ms] = (into[ms] ?? 0) + n;
    }
    sum.unnamedObjects += t.unnamedObjects;
  }
  return sum;
}

/**
 * Per region: the median round trip its isolates' calls to their own
 * region's objects really waited between two tallies (the planet's timers
 * fire late, so it is longer than twice the nominal one-way delay);
 * undefined without calls.
 */
function realizedSameRegionMs(before, after) {
  return Object.fromEntries(
    PLANET_REGIONS.map((r) => {
      const key = `isolate:${r}>${r}:regional`;
      const counts = Object.entries(after.answered[key] ?? {})
        .map(([ms, n]) => [Number(ms), n - (before.answered[key]?.[ms] ?? 0)])
        .filter(([, n]) => n > 0)
        .sort((a, b) => a[0] - b[0]);
      const calls = counts.reduce((sum, [, n]) => sum + n, 0);
      let seen = 0;
      const median = counts.find(([, n]) => (seen += n) >= calls / 2);
      return [r, median?.[0]];
    }),
  );
}

async function warm(ports, path, nonce) {
  const send = (port, p, key) => fetch(`http://127.0.0.1:${port}${p}`, { headers: { "x-api-key": key } }).then((r) => r.arrayBuffer());
  for (const region of PLANET_REGIONS)
    for (const target of ["floodgate", "bare"])
      await Promise.all(Array.from({ length: WARM_REQUESTS }, (_, i) => send(ports[`${target}-${region}`], "/geo/warm", `warm-${i}`)));
  for (let i = 0; i < WARM_KEYS; i += 16) await Promise.all(Array.from({ length: 16 }, (_, j) => send(ports["floodgate-A"], path, `warm-${nonce}-${i + j}`)));
}

/**
 * Run geo-load.mjs on a plan; resolves with its records, and the CPU other
 * processes (not workerd, the load or this one) and workerd used during
 * the load, in % of the machine and of one core.
 */
function runGeoLoad(planFile, outFile, seconds, serverPid) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(here, "geo-load.mjs"), planFile, outFile], { stdio: ["ignore", "pipe", "pipe"] });
    const foreign = watchForeignCpu([serverPid, child.pid, process.pid]);
    const server = watchProcessCpu(serverPid);
    const cpu = {};
    // Read just before the load ends (the child's own ticks are gone once it has exited).
    const sampler = setTimeout(() => Object.assign(cpu, { foreignCpuPercent: foreign.stop(), workerdCpuPercent: server.stop() }), seconds * 1000);
    let output = "";
    child.stdout.on("data", (c) => (output += c));
    child.stderr.on("data", (c) => (output += c));
    const killer = setTimeout(() => child.kill("SIGKILL"), (seconds + 40) * 1000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(killer);
      clearTimeout(sampler);
      if (code !== 0 || !output.includes("GEO_DONE")) return reject(new Error(`geo-load exited ${code}:\n${output}`));
      resolve({ ...JSON.parse(readFileSync(outFile, "utf8")), ...cpu });
    });
  });
}

const percentile = (sorted, p) => (sorted.length === 0 ? NaN : sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]);
const latencies = (records) => records.map((r) => r[4] / 1000).sort((a, b) => a - b);
const pctOf = (part, whole) => (whole > 0 ? (part / whole) * 100 : NaN);

/**
 * Far regions against the near one (A, where the home objects are): each
 * region's p50 over its keys' later requests, absolute and added over its
 * bare worker, the difference from A's added p50, and the round trip to A
 * (nominal, twice the one-way delay). A far region is within one round
 * trip of the near one when that difference is at most its round trip to
 * A: a request paid at most one trip to the home beyond what A's paid.
 *
 * @example
 * farFromNear(rows).C; // { p50Ms: 31.2, addedP50Ms: 12.6, overNearMs: 0.2, roundTripMs: 200, withinOneRoundTrip: true }
 */
export function farFromNear(rows) {
  const near = rows.find((r) => r.region === "A");
  return Object.fromEntries(
    rows
      .filter((r) => r.region !== "all")
      .map((r) => {
        const overNearMs = r.addedP50Ms - near.addedP50Ms;
        const roundTripMs = 2 * oneWayMs(r.region, "A");
        return [r.region, { p50Ms: r.laterP50Ms, addedP50Ms: r.addedP50Ms, overNearMs, roundTripMs, withinOneRoundTrip: overNearMs <= roundTripMs }];
      }),
  );
}

/** Overshoot and false denies of one counter (a key, or a key's regional copy): exact per key and window (one window per run). */
function exactness(records, limit) {
  const offered = records.length;
  const allowed = records.filter((r) => r[5] === 200 && r[6] === 0).length;
  return { offered, allowed, overshoot: Math.max(0, allowed - limit), falseDenies: Math.max(0, Math.min(offered, limit) - allowed) };
}

/** Group floodgate's records by key (and region, for regional copies). */
function byCounter(records, perRegion) {
  const groups = new Map();
  for (const r of records) {
    const id = perRegion ? `${r[2]}/${r[1]}` : r[2];
    if (!groups.has(id)) groups.set(id, []);
    groups.get(id).push(r);
  }
  return groups;
}

/** Per region and for all regions: latency added, exactness, calls and cost. */
function analyze({ workload, rule, records, calls, usage, seconds, keys }) {
  const floodgate = records.filter((r) => r[0] === 0);
  const bare = records.filter((r) => r[0] === 1);
  const limited = workload.kind !== "clients";
  const regionScoped = rule.scope === "region";
  const callsOf = (region, pick) =>
    Object.entries(calls)
      .filter(([k]) => {
        const [caller, route, kind] = k.split(/[:]/);
        const [from, to] = route.split(">");
        return (region === undefined || from === region) && pick({ caller, from, to, kind });
      })
      .reduce((n, [, c]) => n + c, 0);
  const totalRequests = floodgate.length;
  const rowOf = (regionIndex) => {
    const region = regionIndex === undefined ? undefined : PLANET_REGIONS[regionIndex];
    const mine = (list) => (regionIndex === undefined ? list : list.filter((r) => r[1] === regionIndex));
    const fg = mine(floodgate);
    const answered = (list) => list.filter((r) => r[5] === 200 || r[5] === 429);
    const bareAll = latencies(answered(mine(bare)));
    const later = latencies(answered(fg).filter((r) => r[3] > 0));
    const first = latencies(answered(fg).filter((r) => r[3] === 0));
    const requests = fg.length;
    const home = callsOf(region, (c) => c.kind === "home");
    const regional = callsOf(region, (c) => c.kind === "regional");
    const crossFromIsolates = callsOf(region, (c) => c.caller === "isolate" && c.from !== c.to);
    const crossFromObjects = callsOf(region, (c) => c.caller === "object" && c.from !== c.to);
    const share = requests / totalRequests;
    const cost = costOf([
      {
        requests,
        seconds,
        usage: {
          calls: home + regional,
          alarms: usage.alarms * share,
          rowsRead: usage.rowsRead * share,
          rowsWritten: usage.rowsWritten * share,
          objects: usage.objects * share,
        },
      },
    ]);
    const row = {
      region: region ?? "all",
      requests,
      failed: fg.filter((r) => !(r[5] === 200 || r[5] === 429) || r[6] === 1).length,
      allowed: fg.filter((r) => r[5] === 200 && r[6] === 0).length,
      bareP50Ms: percentile(bareAll, 0.5),
      bareP99Ms: percentile(bareAll, 0.99),
      laterP50Ms: percentile(later, 0.5),
      laterP99Ms: percentile(later, 0.99),
      addedP50Ms: percentile(later, 0.5) - percentile(bareAll, 0.5),
      addedP99Ms: percentile(later, 0.99) - percentile(bareAll, 0.99),
      firstRequests: first.length,
      firstAddedP50Ms: percentile(first, 0.5) - percentile(bareAll, 0.5),
      firstAddedP99Ms: percentile(first, 0.99) - percentile(bareAll, 0.99),
      homeCallsPerRequest: home / requests,
      regionalCallsPerRequest: regional / requests,
      crossRegionCallsFromIsolates: crossFromIsolates,
      crossRegionCallsFromObjects: crossFromObjects,
      dollarsPerMillion: cost.dollarsPerMillion,
    };
    if (limited && (regionScoped || region === undefined)) {
      // Under scope region every region's copy of a key is a counter of its own; globally, the key is.
      const counters = [...byCounter(fg, regionScoped).values()].map((list) => exactness(list, rule.limit));
      const overshoot = counters.reduce((n, c) => n + c.overshoot, 0);
      const falseDenies = counters.reduce((n, c) => n + c.falseDenies, 0);
      Object.assign(row, {
        counters: counters.length,
        overshoot,
        overshootPercent: pctOf(overshoot, counters.length * rule.limit),
        falseDenies,
        falseDenyPercent: pctOf(falseDenies, counters.length * rule.limit),
      });
    }
    return row;
  };
  const rows = [...PLANET_REGIONS.map((_, i) => rowOf(i)), rowOf(undefined)];
  const result = { rows };
  if (limited && regionScoped) {
    // A key seen in R regions against its bound, (R − 1) × the limit.
    const perKey = [...byCounter(floodgate, false).entries()].map(([k, list]) => ({
      regions: new Set(list.map((r) => r[1])).size,
      ...exactness(list, rule.limit),
      key: keys[k],
    }));
    result.byRegionsSeen = [1, 2, 3].map((R) => {
      const seen = perKey.filter((k) => k.regions === R);
      const worst = Math.max(0, ...seen.map((k) => k.overshoot));
      return {
        regions: R,
        keys: seen.length,
        worstOvershoot: worst,
        worstOvershootPercent: pctOf(worst, rule.limit),
        boundPercent: (R - 1) * 100,
        withinBound: seen.every((k) => k.overshoot <= (R - 1) * rule.limit),
      };
    });
  }
  return result;
}

/**
 * Run every workload, each in a workerd of its own. `built` is
 * `buildWorkers(…)`'s result; `noteStopped(id, warnings)` hears of each
 * workerd's runtime warnings as it stops. Returns a JSON-able result: the
 * planet, and per workload its rule, load and rows (A, B, C, all).
 *
 * @example
 * results.geography = await measureGeography({ built, workDir: join(work, "geography"), quick, log, noteStopped });
 */
export async function measureGeography({ built, workDir, quick = false, only, keys: keyCount, log = () => {}, noteStopped = () => {} }) {
  for (const id of only ?? [])
    if (!GEO_WORKLOADS.some((w) => w.id === id)) throw new Error(`--geo-only: no workload ${id} (${GEO_WORKLOADS.map((w) => w.id).join(", ")})`);
  rmSync(workDir, { recursive: true, force: true });
  mkdirSync(workDir, { recursive: true });
  const sizes = quick ? SIZES.quick : SIZES.full;
  const nonce = Date.now().toString(36);
  const workloads = [];
  for (const workload of GEO_WORKLOADS.filter((w) => only === undefined || only.includes(w.id))) {
    const path = workload.path[quick ? "quick" : "full"];
    const rule = ruleOf(path);
    if (rule.scope !== workload.scope)
      throw new Error(`bench/rules/bench.json: ${path} has scope ${rule.scope}, the workload ${workload.id} needs ${workload.scope}`);
    // --geo-keys: fewer keys at the same rate each, for a machine that cannot serve the full load.
    const size = keyCount !== undefined && workload.kind !== "hot" ? { ...sizes[workload.kind], keys: keyCount } : sizes[workload.kind];
    const { keys, events } = planLoad(workload, size, rule, nonce);
    const dir = join(workDir, workload.id);
    const { path: configPath, ports } = await writeConfig(dir, servicesOf(built), join(dir, "storage"));
    const server = await startWorkerd(configPath, ports, join(workDir, `workerd-${workload.id}.log`));
    log(
      `geography ${workload.id}: workerd (pid ${server.pid}), ${keys.length} key(s), ${events.length} requests over ${size.seconds} s to ${path} (and as many to the bare workers)`,
    );
    try {
      await warm(ports, path, nonce);
      const [callsBefore, usageBefore] = [await callTally(ports), await getJson(ports["floodgate-A"], "/__bench/usage")];
      const planFile = join(dir, "plan.json");
      const floodgatePorts = PLANET_REGIONS.map((r) => ports[`floodgate-${r}`]);
      const barePorts = PLANET_REGIONS.map((r) => ports[`bare-${r}`]);
      writeFileSync(planFile, JSON.stringify({ path, keys, events, floodgate: floodgatePorts, bare: barePorts, bareEvery: BARE_EVERY }));
      const windowAtStart = Math.floor(Date.now() / rule.windowMs);
      const loaded = await runGeoLoad(planFile, join(dir, "records.json"), size.seconds, server.pid);
      const windowRolled = Math.floor(Date.now() / rule.windowMs) !== windowAtStart;
      // The checkpoint of the load's last second comes at most persist_ms (1000) later.
      await new Promise((r) => setTimeout(r, 1_200));
      const callsAfter = await callTally(ports);
      const usageAfter = await getJson(ports["floodgate-A"], "/__bench/usage");
      const calls = Object.fromEntries(Object.entries(callsAfter.calls).map(([k, n]) => [k, n - (callsBefore.calls[k] ?? 0)]));
      const usage = Object.fromEntries(Object.keys(usageAfter).map((k) => [k, usageAfter[k] - (usageBefore[k] ?? 0)]));
      const analyzed = analyze({ workload, rule, records: loaded.records, calls, usage, seconds: size.seconds, keys });
      workloads.push({
        id: workload.id,
        title: workload.title,
        kind: workload.kind,
        path,
        scope: rule.scope,
        limit: rule.limit,
        windowMs: rule.windowMs,
        keys: keys.length,
        seconds: size.seconds,
        loadSeconds: loaded.seconds,
        sendLagP99Ms: percentile(
          loaded.records.map((r) => r[7] / 1000).sort((a, b) => a - b),
          0.99,
        ),
        foreignCpuPercent: loaded.foreignCpuPercent,
        workerdCpuPercent: loaded.workerdCpuPercent,
        offeredPerSecond: events.length / size.seconds,
        windowRolled,
        calls,
        realizedSameRegionMs: realizedSameRegionMs(callsBefore, callsAfter),
        unnamedObjects: callsAfter.unnamedObjects,
        ...analyzed,
        farFromNear: farFromNear(analyzed.rows),
      });
      const all = analyzed.rows.at(-1);
      log(
        `geography ${workload.id}: p50 added ${analyzed.rows.map((r) => `${r.region} ${r.addedP50Ms.toFixed(1)}`).join(", ")} ms` +
          (all.overshootPercent !== undefined ? `; overshoot ${all.overshootPercent.toFixed(2)} %, false denies ${all.falseDenyPercent.toFixed(2)} %` : "") +
          (all.failed > 0 ? `; ${all.failed} failed` : ""),
      );
    } finally {
      noteStopped(`geography-${workload.id}`, await server.stop());
      rmSync(join(dir, "storage"), { recursive: true, force: true });
    }
  }
  return {
    regions: Object.fromEntries(PLANET_REGIONS.map((r) => [r, { hint: PLANET[r].hint, cf: PLANET[r].cf }])),
    oneWayMs: Object.fromEntries(PLANET_REGIONS.flatMap((a) => PLANET_REGIONS.map((b) => [`${a}${b}`, oneWayMs(a, b)]))),
    workloads,
  };
}

const num = (n, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : "–");
const pct = (n) => (Number.isFinite(n) ? `${n.toFixed(2)} %` : "–");

/**
 * The geography table in Markdown (one row per workload and region, then all regions), and the per-region scope's bound.
 *
 * @example
 * console.log(printGeography(results.geography));
 */
export function printGeography(geo) {
  const rows = [];
  for (const w of geo.workloads) {
    for (const r of w.rows) {
      rows.push([
        r.region === "A" ? w.title : "",
        r.region === "all" ? "all" : `${r.region} (${geo.regions[r.region].hint})`,
        r.requests.toLocaleString("en-US"),
        `${num(r.addedP50Ms)} / ${num(r.addedP99Ms)}`,
        `${num(r.firstAddedP50Ms)} / ${num(r.firstAddedP99Ms)}`,
        pct(r.overshootPercent),
        pct(r.falseDenyPercent),
        num(r.homeCallsPerRequest, 3),
        num(r.regionalCallsPerRequest, 3),
        `${r.crossRegionCallsFromIsolates} / ${r.crossRegionCallsFromObjects}`,
        `$${num(r.dollarsPerMillion, 3)}`,
        r.failed > 0 ? String(r.failed) : "0",
      ]);
    }
  }
  const m = geo.oneWayMs;
  const lines = [
    `Geography: regions ${Object.entries(geo.regions)
      .map(([r, v]) => `${r} = ${v.hint}`)
      .join(
        ", ",
      )}; one way: same region ${m.AA} ms, A–B ${m.AB} ms, A–C ${m.AC} ms, B–C ${m.BC} ms; home objects in A. Latency added over the bare worker of the same region and run (later requests: a key's 2nd on from that region; first: its 1st).`,
    "",
    markdownTable(
      [
        "workload",
        "region",
        "requests",
        "added p50 / p99 ms",
        "first request: added p50 / p99 ms",
        "overshoot, % of limit",
        "false denies, % of limit",
        "home calls / req",
        "regional calls / req",
        "cross-region calls (isolates / objects)",
        "$ per 1M req",
        "failed",
      ],
      rows,
    ),
  ];
  for (const w of geo.workloads) {
    const all = w.rows.at(-1);
    const load = `${w.title}: ${w.keys.toLocaleString("en-US")} key(s), ${Math.round(w.offeredPerSecond)} req/s for ${w.seconds} s to ${w.path} (scope ${w.scope}${w.kind === "clients" ? "" : `, limit ${w.limit} per ${Object.keys(UNIT_MS).find((u) => UNIT_MS[u] === w.windowMs) ?? `${w.windowMs / 1000} s`}`})`;
    lines.push(
      "",
      `${load}; bare p50 ${num(all.bareP50Ms)} ms, p99 ${num(all.bareP99Ms)} ms; sends late by ≤ ${num(w.sendLagP99Ms)} ms (p99); workerd ${num(w.workerdCpuPercent, 0)} % of a core, other processes ${num(w.foreignCpuPercent, 0)} % of the machine${w.windowRolled ? "; WARNING: the window rolled during the load, so its exactness figures are void" : ""}${w.unnamedObjects > 0 ? `; ${w.unnamedObjects} object(s) had no name (placed in A)` : ""}.`,
    );
    // The bare worker only forwards: when even its p99 is this slow, the machine did not keep up with the offered rate.
    if (all.bareP99Ms > OVERLOADED_BARE_P99_MS)
      lines.push(
        `  WARNING: the bare worker's p99 was ${num(all.bareP99Ms, 0)} ms: this machine did not keep up with the offered rate, so the latencies of this workload mean little.`,
      );
    const realized = PLANET_REGIONS.filter((r) => w.realizedSameRegionMs?.[r] !== undefined);
    if (realized.length > 0)
      lines.push(
        `  an isolate's call to its own region's object really waited, p50 (round trip, nominal ${2 * m.AA} ms): ${realized.map((r) => `${r} ${num(w.realizedSameRegionMs[r])} ms`).join(", ")}`,
      );
    if (w.farFromNear) {
      const f = w.farFromNear;
      const far = PLANET_REGIONS.filter((r) => r !== "A");
      lines.push(
        `  far regions against the near one (homes in A), p50 of later requests (absolute / added): A ${num(f.A.p50Ms)} / ${num(f.A.addedP50Ms)} ms; ${far
          .map(
            (r) =>
              `${r} ${num(f[r].p50Ms)} / ${num(f[r].addedP50Ms)} ms (${f[r].overNearMs >= 0 ? "+" : ""}${num(f[r].overNearMs)} ms over A; round trip to A ${f[r].roundTripMs} ms)`,
          )
          .join("; ")}: far p50 within one round trip of the near one: ${far.every((r) => f[r].withinOneRoundTrip) ? "yes" : "NO"}`,
      );
    }
    if (w.byRegionsSeen)
      lines.push(
        `  overshoot of a key seen in R regions (bound (R − 1) × the limit): ${w.byRegionsSeen.map((b) => `R = ${b.regions}: ${b.keys} keys, worst ${pct(b.worstOvershootPercent)} (bound ${b.boundPercent} %${b.withinBound ? "" : ", EXCEEDED"})`).join("; ")}`,
      );
  }
  return lines.join("\n");
}
