#!/usr/bin/env node
/**
 * `npm run bench`: floodgate against the physical limit (a bare pass-through
 * worker, forwarding to the same origin) and
 * a peer (hono-rate-limiter's Durable Object store), each side in a workerd
 * of its own (so each side's CPU per request is its own), loaded from a
 * separate process on 127.0.0.1; then the accuracy of every algorithm
 * on a seeded trace, and the memory each keeps per key. Prints the tables,
 * writes the run's full raw JSON to bench/runs/ (git-ignored), and its
 * summary to bench/results.json plus the chart bench/results.svg (a quick or
 * partial run writes those two under bench/.work/ instead, leaving the
 * results bench/README.md shows be). Method: bench/README.md.
 *
 *   npm run bench                  full run (~50 min on 2 cores)
 *   npm run bench -- --quick       smoke run (~3 min): 8 scenarios, 1 round of 1 s, small traces, the mixed pass, a small geography
 *   npm run bench -- --mixed       also with --only: every scenario alone and then mixed in one long-lived workerd (full and quick runs always)
 *   npm run bench -- --geo         the simulated geography alone (bench/lib/geography.mjs; --skip-geo leaves it out;
 *                                  --geo-only clients,api: those workloads alone; --geo-keys N: N keys in (i) and (ii), each at its rate)
 *   npm run bench -- --llm         the streamed LLM answer alone: first byte and CPU per request through a token budget, beside
 *                                  its plain control and the bare worker (bench/lib/llm-stream.mjs; --skip-llm leaves it out)
 *   npm run bench -- --cost        what a deployment costs alone: every object class's requests, rows, active time and stored bytes for
 *                                  thin keys, a hot key and a key scan from three regions, in $ per million (bench/lib/object-costs.mjs;
 *                                  --skip-cost leaves it out)
 *   options: --rounds N  --duration S  --connections C  --only id,id  --client wrk|autocannon
 *            --skip-load  --skip-accuracy  --skip-memory  --skip-overshoot  --skip-scan  --scan-keys N  --scan-rows hour,minute,hour-4k  --profile <scenario id>
 *            --edges N,N (the overshoot's isolate counts; default 1,2,4,8,16,32,64, --quick 2)
 *
 * `--skip-load` skips the scenarios only: the overshoot and the memory scan
 * still build the workers and run unless skipped too.
 *
 * Every comparison is a ratio taken within this run; absolute figures are
 * shown for context and never asserted.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { replayAccuracy } from "./lib/accuracy.mjs";
import { costOf, printCost, settledUsage, settles, usageDelta } from "./lib/cost.mjs";
import { measureObjectCosts, printObjectCosts } from "./lib/object-costs.mjs";
import { measureScan, printScan } from "./lib/scan.mjs";
import { mixedTargets, oneProcess, printMixed, sideBySide } from "./lib/mixed.mjs";
import { EDGE_COUNTS, measureOvershoot, printOvershoot } from "./lib/overshoot.mjs";
import { measureGeography, printGeography } from "./lib/geography.mjs";
import { measureLlmStream, printLlmStream } from "./lib/llm-stream.mjs";
import { buildWorkers } from "./lib/build.mjs";
import { keyArgs } from "./lib/keys.mjs";
import { loadClient, runLoad } from "./lib/load.mjs";
import { machine, watchForeignCpu, watchProcessCpu } from "./lib/machine.mjs";
import { profileDuring, summarizeBySource } from "./lib/profile.mjs";
import { printReport, renderSvg, roundTrip } from "./lib/report.mjs";
import { realizedRoundTripMs } from "./lib/round-trip.mjs";
import { formatSummary, summarize } from "./lib/summary.mjs";
import { cpuRatiosByRound, cpuUsPerRequest, processCpuTicks, spread, TICKS_PER_SECOND } from "./lib/cpu.mjs";
import { startSides } from "./lib/sides.mjs";
import { exactness, median, summarizeLoads } from "./lib/stats.mjs";
import { printWarnings, tallyWarnings, warningCounts, warningLines } from "./lib/warnings.mjs";
import { workerdVersion } from "./lib/workerd.mjs";
import { FLOODGATE_VARIANTS, PROBES, SCENARIOS, zipfOverRanks } from "./scenarios.ts";
import { checkBenchRules } from "./lib/rules-check.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
process.chdir(root);
process.env.WRANGLER_SEND_METRICS = "false";

const argv = process.argv.slice(2);
const flag = (name) => argv.includes(`--${name}`);
const option = (name, fallback) => {
  const at = argv.indexOf(`--${name}`);
  return at >= 0 && at + 1 < argv.length ? argv[at + 1] : fallback;
};
const quick = flag("quick");
const settings = {
  quick,
  rounds: Number(option("rounds", quick ? 1 : 5)),
  seconds: Number(option("duration", quick ? 1 : 3)),
  connections: Number(option("connections", 50)),
  warmupSeconds: quick ? 0 : 1,
};
const only = option("only", undefined)?.split(",");
const profileScenario = option("profile", undefined);
const edgeCounts = option("edges", undefined)?.split(",").map(Number) ?? (quick ? EDGE_COUNTS.quick : EDGE_COUNTS.full);
if (!edgeCounts.every((e) => Number.isInteger(e) && e >= 1)) throw new Error(`--edges: a comma-separated list of isolate counts ≥ 1, not "${option("edges")}"`);

const work = join(root, "bench", ".work");
const startedAt = Date.now();
const log = (message) => console.log(`[bench ${((Date.now() - startedAt) / 1000).toFixed(0).padStart(3)} s] ${message}`);

/**
 * The bench's services, each run in a workerd of its own (lib/sides.mjs):
 * the origin, the bare pass-through worker, floodgate (and any variants),
 * the peer and the probes. Everything but the origin forwards allowed
 * requests to the origin over 127.0.0.1.
 */
/** floodgate's vars in production's shape: the region of each request from its cf (bench/workers/geography.ts, FROM_CF). */
const IN_REGIONS = { BENCH_REGION: "cf" };

function services(built) {
  const toOrigin =
    (vars = {}) =>
    (ports) => ({ ...vars, ORIGIN_URL: `http://127.0.0.1:${ports.origin}` });
  const list = {
    origin: { worker: built.origin },
    bare: { worker: built.bare, vars: toOrigin() },
    // Production's shape: each request's cf (three colos in three regions, bench/lib/load.lua) names its region, and
    // every object call waits the planet's distance (bench/workers/geography.ts).
    floodgate: { worker: built.floodgate, vars: toOrigin(IN_REGIONS) },
    // The same build again, for the per-key scenarios' own runs (their thousands of objects, one per key, in a process of their own).
    "floodgate-per-key": { worker: built.floodgate, vars: toOrigin(IN_REGIONS) },
    peer: { worker: built.peer, vars: toOrigin() },
    probe: { worker: built.probe, vars: toOrigin() },
  };
  for (const variant of FLOODGATE_VARIANTS)
    list[variant.id] = { worker: built.floodgate, vars: toOrigin(variant.direct ? variant.vars : { ...IN_REGIONS, ...variant.vars }) };
  return list;
}

/** The targets loaded for one scenario: bare, floodgate (and variants), its baselines, the peer, and probes if asked. */
function targetsOf(scenario) {
  const targets = [
    { id: "bare", service: "bare", path: scenario.path },
    { id: "floodgate", service: scenario.path.startsWith("/per-key/") ? "floodgate-per-key" : "floodgate", path: scenario.path },
    ...(scenario.variants ?? []).map((id) => ({ id, service: id, path: scenario.path })),
    ...(scenario.baselines ?? []).map((b) => ({ id: b.id, service: b.service, path: b.path })),
    { id: "peer", service: "peer", path: scenario.path },
  ];
  if (scenario.probes && !quick) for (const probe of PROBES) targets.push({ id: probe.id, service: probe.service, path: probe.path });
  return targets;
}

/**
 * A baseline that answers floodgate's 429 at once must answer the same 429:
 * same status, same header names, same body fields (numbers aside, which
 * floodgate computes per request). Checked once the scenario's key is
 * spent (after the warm-up, or by spending it here); a drifted baseline
 * stops the run.
 */
async function sameRejection(scenario, targets, portOf) {
  const baseline = targets.find((t) => t.path.startsWith("/429/"));
  if (baseline === undefined) return;
  const shapeOf = async (target) => {
    const response = await fetch(`http://127.0.0.1:${portOf(target)}${target.path}`, { headers: { "x-api-key": scenario.keys.key } });
    const names = [...response.headers.keys()].filter(
      (n) => n.startsWith("ratelimit") || n.startsWith("x-ratelimit-") || n === "retry-after" || n === "content-type",
    );
    const body = (await response.text()).replace(/\d+/g, "N");
    return JSON.stringify({ status: response.status, names: names.filter((n) => n !== "x-ratelimit-decision").sort(), body });
  };
  let floodgate = "";
  // Without a warm-up the key may not be spent yet: its first `limit` requests are allowed.
  for (let i = 0; i <= scenario.limit.limit && !floodgate.startsWith('{"status":429'); i++)
    floodgate = await shapeOf(targets.find((t) => t.id === "floodgate"));
  const bare = await shapeOf(baseline);
  if (floodgate !== bare) throw new Error(`${baseline.id} no longer answers floodgate's 429:\n  floodgate ${floodgate}\n  baseline  ${bare}`);
}

function keyArgsOf(scenario, nonce) {
  const p = scenario.keys;
  return keyArgs(p, nonce, p.kind === "zipf" ? zipfOverRanks(p.keys, p.exponent, p.overShare) : 0);
}

/** A run during which other processes used more of the CPU than this (% of all cores) is repeated. */
const FOREIGN_CPU_MAX = 15;
/**
 * A run starts only once workerd itself, with no load on it, uses less than
 * this (% of one core). Earlier runs leave deferred work behind: the peer
 * sets an alarm per key for the end of its window, so a minute after a
 * scan thousands of objects wake and write, whatever target is loaded then.
 */
const SERVER_IDLE_CPU_MAX = 10;
/**
 * A target's CPU is read from just before its load until its process is idle
 * again (as above, over 250 ms), at most this long after the load (and the
 * checkpoint wait of a counted run): the work its requests leave behind
 * (floodgate's checkpoint within persist_ms, the last answers of far
 * objects) counts; the peer's alarms, a window later, fall in whichever of
 * its own runs comes next.
 */
const CPU_TAIL_MAX_MS = 2_000;

/**
 * Every scenario in workerd processes of its own (one per target, and the
 * origin's; fresh storage), its targets alternating round by round. A shared
 * process made each scenario inherit the ones before it: thousands of
 * per-key objects and the peer's alarms, which fire a window after its
 * requests and write, whatever target is being loaded then. Each run also
 * reads its target's process CPU (`cpuTicks`, `cpuUs` per request served).
 * With `mixed`, `results.processes` gets each long-lived process's CPU over
 * every request it served in the pass.
 */
async function runLoads(scenarios, startServer, client, results, { mixed = false } = {}) {
  const runId = startedAt.toString(36);
  // Time the bench may spend waiting for, or repeating runs because of, other work on the machine.
  let patience = quick ? 10_000 : 150_000;
  let serverWaits = 0;
  const quietMoment = async (serverPids) => {
    for (;;) {
      const watch = watchForeignCpu(serverPids);
      const server = watchProcessCpu(serverPids);
      await new Promise((r) => setTimeout(r, 250));
      const busy = watch.stop();
      const serverBusy = server.stop();
      if ((!(busy > FOREIGN_CPU_MAX) && !(serverBusy > SERVER_IDLE_CPU_MAX)) || patience <= 0) return busy;
      if (serverBusy > SERVER_IDLE_CPU_MAX) serverWaits += 1;
      patience -= 1_000;
      await new Promise((r) => setTimeout(r, 750));
    }
  };

  // Until the process is idle again (< SERVER_IDLE_CPU_MAX over 250 ms), at most CPU_TAIL_MAX_MS.
  const settle = async (pid) => {
    for (const until = Date.now() + CPU_TAIL_MAX_MS; Date.now() < until; ) {
      const busy = watchProcessCpu(pid);
      await new Promise((r) => setTimeout(r, 250));
      if (!(busy.stop() > SERVER_IDLE_CPU_MAX)) return;
    }
  };

  const all = [];
  const rows = [];
  // Requests each process's load client got over the whole pass (warm-ups and repeated runs included).
  const served = new Map();
  let server;
  for (const scenario of scenarios) {
    const targets = mixed ? mixedTargets(targetsOf(scenario), scenario, quick) : targetsOf(scenario);
    server = await startServer(scenario, targets);
    const load = async (target, nonce, seconds) => {
      const result = await runLoad({
        client: client.name,
        url: `http://127.0.0.1:${server.portOf(target)}${target.path}`,
        connections: settings.connections,
        seconds,
        keyArgs: keyArgsOf(scenario, nonce),
        serverPids: server.pids,
      });
      const side = server.processOf(target);
      served.set(side, (served.get(side) ?? 0) + result.requests);
      return result;
    };
    const usageOf = async (target) => (await fetch(`http://127.0.0.1:${server.portOf(target)}/__bench/usage`)).json();
    const measure = async (target, nonce) => {
      for (let attempt = 1; ; attempt++) {
        const idleBusy = await quietMoment(server.pids);
        const before = Date.now();
        // The mixed pass reads throughput only: its cost is the alone runs', and skipping the checkpoint wait keeps it short.
        const counted = !mixed && target.service.startsWith("floodgate");
        const usageBefore = counted ? await usageOf(target) : undefined;
        if (target.id === "floodgate") firstUsage ??= usageBefore;
        const pid = server.pidOf(target);
        const ticksBefore = processCpuTicks(pid);
        const result = await load(target, `${nonce}-${attempt}`, settings.seconds);
        // The checkpoint of the load's last second comes at most persist_ms (1000) later.
        if (counted) await new Promise((r) => setTimeout(r, 1_200));
        await settle(pid);
        const cpuTicks = processCpuTicks(pid) - ticksBefore;
        const usage = counted ? usageDelta(usageBefore, await usageOf(target)) : undefined;
        if (!(result.foreignCpuPercent > FOREIGN_CPU_MAX) || patience <= 0)
          return {
            ...result,
            attempts: attempt,
            idleForeignCpuPercent: idleBusy,
            cpuTicks,
            cpuUs: cpuUsPerRequest(cpuTicks, result.requests),
            ...(usage ? { usage, seconds: settings.seconds } : {}),
          };
        patience -= Date.now() - before;
        log(`  ${scenario.id}/${target.id}: other processes used ${result.foreignCpuPercent.toFixed(0)} % of the CPU during the run; repeating it`);
      }
    };
    const byTarget = new Map(targets.map((t) => [t.id, []]));
    let firstUsage;
    let settled;
    try {
      // A fresh process: compile and warm every target before the first measured round.
      if (settings.warmupSeconds > 0) for (const target of targets) await load(target, `${runId}-warm-${target.id}`, settings.warmupSeconds);
      if (scenario.keys.kind === "fixed") await sameRejection(scenario, targets, server.portOf);
      for (let round = 0; round < settings.rounds; round++) {
        // Rotate the order each round so no target always runs first (or right after another).
        const order = targets.map((_, i) => targets[(i + round) % targets.length]);
        for (const target of order) byTarget.get(target.id).push({ round, ...(await measure(target, `${runId}-${round}-${target.id}`)) });
        const fg = byTarget.get("floodgate").at(-1);
        log(
          `${scenario.id} round ${round + 1}/${settings.rounds}: ${order.map((t) => `${t.id} ${Math.round(byTarget.get(t.id).at(-1).rps)}`).join(", ")} req/s` +
            (fg.failOpen ? ` (floodgate failed open ${fg.failOpen}×)` : ""),
        );
      }
      if (!mixed && settles(scenario)) settled = await settledUsage(firstUsage, () => usageOf(targets.find((t) => t.id === "floodgate")), log);
    } finally {
      await server.stop();
    }
    all.push(...[...byTarget.values()].flat());
    const targetSummary = summarizeLoads(byTarget);
    for (const [id, runs] of byTarget) {
      const cost = costOf(runs, id === "floodgate" ? settled : undefined);
      if (cost) targetSummary[id] = { ...targetSummary[id], cost };
      const realized = realizedRoundTripMs(runs);
      if (realized !== undefined) targetSummary[id] = { ...targetSummary[id], realizedRoundTripMs: realized };
    }
    // What a variant gives up (e.g. coalescing), or how floodgate compares with a baseline (strong mode, a bare 429):
    // floodgate's throughput over the other's, and its CPU per request over the other's, round by round.
    for (const id of [...(scenario.variants ?? []), ...(scenario.baselines ?? []).map((b) => b.id)].filter((id) => byTarget.has(id))) {
      const perRound = byTarget.get(id).map((r) => (byTarget.get("floodgate").find((f) => f.round === r.round)?.rps ?? NaN) / r.rps);
      const cpuRounds = cpuRatiosByRound(byTarget.get("floodgate"), byTarget.get(id));
      const cpu = spread(cpuRounds);
      targetSummary[id] = {
        ...targetSummary[id],
        floodgateOverThis: median(perRound),
        floodgateOverThisRounds: perRound,
        floodgateCpuOverThis: cpu.median,
        floodgateCpuOverThisMin: cpu.min,
        floodgateCpuOverThisMax: cpu.max,
      };
    }
    rows.push({
      id: scenario.id,
      title: scenario.title,
      path: scenario.path,
      meaning: scenario.meaning,
      limit: scenario.limit,
      ...(scenario.baselines ? { baselines: scenario.baselines.map((b) => ({ ...b })) } : {}),
      ...(scenario.roundTrip ? { roundTrip: scenario.roundTrip } : {}),
      targets: targetSummary,
      exactness: scenario.exactness
        ? Object.fromEntries(
            ["floodgate", ...(scenario.variants ?? []), "peer"].filter((id) => byTarget.has(id)).map((id) => [id, exactness(byTarget.get(id), scenario.limit)]),
          )
        : undefined,
    });
  }
  if (mixed && server) {
    const ticks = server.cpuSinceStart();
    results.processes = Object.fromEntries(
      Object.entries(ticks)
        .filter(([id]) => served.has(id))
        .map(([id, t]) => [id, { requests: served.get(id), cpuSeconds: t / TICKS_PER_SECOND, cpuUsPerRequest: cpuUsPerRequest(t, served.get(id)) }]),
    );
  }
  const foreign = all.map((r) => r.foreignCpuPercent).filter(Number.isFinite);
  results.background = {
    thresholdPercent: FOREIGN_CPU_MAX,
    medianPercent: median(foreign),
    maxPercent: foreign.length ? Math.max(...foreign) : NaN,
    runsOverThreshold: foreign.filter((f) => f > FOREIGN_CPU_MAX).length,
    repeatedRuns: all.reduce((n, r) => n + r.attempts - 1, 0),
    serverIdleCpuMaxPercent: SERVER_IDLE_CPU_MAX,
    serverBusyWaitSeconds: serverWaits,
    patienceLeftSeconds: Math.max(0, Math.round(patience / 1000)),
  };
  return rows;
}

async function profile(scenario, ports, client, built) {
  const target = { id: "floodgate", service: "floodgate", path: scenario.path };
  log(`profiling floodgate on ${scenario.id} for ${settings.seconds} s`);
  const { profile: cpu, result } = await profileDuring(Number(process.env.BENCH_INSPECT), "floodgate", () =>
    runLoad({
      client: client.name,
      url: `http://127.0.0.1:${ports.floodgate}${target.path}`,
      connections: settings.connections,
      seconds: settings.seconds,
      keyArgs: keyArgsOf(scenario, `profile-${startedAt}`),
    }),
  );
  const file = join(work, `profile-${scenario.id}.cpuprofile`);
  writeFileSync(file, JSON.stringify(cpu));
  const map = JSON.parse(readFileSync(join(built.floodgate.dir, `${built.floodgate.modules[0]}.map`), "utf8"));
  console.log(`\n${Math.round(result.rps)} req/s under the profiler; self time by source (${file}):`);
  for (const row of summarizeBySource(cpu, map, built.floodgate.modules[0]).slice(0, 25))
    console.log(`${(row.share * 100).toFixed(1).padStart(6)} %  ${row.source}`);
}

async function main() {
  const client = loadClient(option("client", "auto"));
  const env = machine({ workerd: workerdVersion(), loadClient: `${client.name} ${client.version}` });
  log(`${env.cpu}, ${env.cores} cores, ${env.memoryGiB} GiB; node ${env.node}; workerd ${env.workerd}; load: ${env.loadClient}`);
  const unknown = only?.filter((id) => !SCENARIOS.some((s) => s.id === id)) ?? [];
  if (unknown.length > 0) throw new Error(`--only: no scenario ${unknown.join(", ")} (have ${SCENARIOS.map((s) => s.id).join(", ")})`);
  const scenarios = SCENARIOS.filter((s) => (only ? only.includes(s.id) : !quick || s.quick));
  const results = { generatedAt: new Date().toISOString(), command: `npm run bench${argv.length ? ` -- ${argv.join(" ")}` : ""}`, environment: env, settings };

  // --geo: the geography alone; otherwise it runs in full and quick runs (not with --only or --profile) unless --skip-geo.
  const geoAlone = flag("geo");
  // --cost: the object costs alone; otherwise, as the geography, in full and quick runs unless --skip-cost.
  const costAlone = flag("cost");
  // --llm: the streamed LLM answer alone; otherwise, as the geography, in full and quick runs unless --skip-llm.
  const llmAlone = flag("llm");
  const alone = geoAlone || costAlone || llmAlone;
  const geo = geoAlone || (!alone && !only && !profileScenario && !flag("skip-geo"));
  const objectCosts = costAlone || (!alone && !only && !profileScenario && !flag("skip-cost"));
  const llmStream = llmAlone || (!alone && !only && !profileScenario && !flag("skip-llm"));
  const loads = !alone && (!flag("skip-load") || profileScenario);
  const overshoot = !alone && !profileScenario && !flag("skip-overshoot");
  const scan = !alone && !profileScenario && !flag("skip-scan");
  // Every workerd the run stopped, with the runtime warnings its log holds: said at once when there are any, and tallied at the end.
  const stopped = [];
  const noteStopped = (id, warnings) => {
    stopped.push({ workerd: id, ...warnings });
    if (warnings.total > 0) log(`WARNING: workerd of ${id} logged runtime warnings: ${warningCounts(warnings)}\n${warningLines(warnings).join("\n")}`);
  };
  if (loads || overshoot || scan || geo || objectCosts || llmStream) {
    checkBenchRules(SCENARIOS);
    rmSync(work, { recursive: true, force: true });
    log("building floodgate, origin, bare, peer and probe workers (wrangler deploy --dry-run)");
    const built = await buildWorkers(root, join(work, "build"));
    if (loads) {
      if (profileScenario) process.env.BENCH_INSPECT ??= "9229";
      let current;
      let started = 0;
      // Fresh workerd processes (one per side, lib/sides.mjs) with fresh storage (their own directories) each time.
      const startServer = async (scenario, targets, { mixed = false } = {}) => {
        started += 1;
        const sides = await startSides({
          services: services(built),
          targets,
          mixed,
          dir: join(work, "build", "configs", String(started)),
          storageDir: join(work, "storage", String(started)),
          logOf: (id) => join(work, `workerd-${scenario.id}-${id}.log`),
          inspectorPort: process.env.BENCH_INSPECT ?? null,
        });
        const server = {
          ...sides,
          stop: async () => {
            for (const { id, warnings } of await sides.stop()) noteStopped(`${scenario.id}/${id}`, warnings);
            if (current === server) current = undefined;
          },
        };
        current = server;
        log(
          `${scenario.id}: one workerd per side, ${Object.entries(sides.ports)
            .map(([id, port]) => `${id} :${port}`)
            .join(", ")}`,
        );
        return server;
      };
      const stopOnSignal = async () => {
        await current?.stop();
        process.exit(130);
      };
      process.once("SIGINT", stopOnSignal);
      process.once("SIGTERM", stopOnSignal);
      try {
        if (profileScenario) {
          const scenario = SCENARIOS.find((s) => s.id === profileScenario);
          if (!scenario) throw new Error(`--profile: no scenario "${profileScenario}" (have ${SCENARIOS.map((s) => s.id).join(", ")})`);
          const server = await startServer(scenario, [{ id: "floodgate", service: "floodgate", path: scenario.path }]);
          try {
            await profile(scenario, server.ports, client, built);
          } finally {
            await server.stop();
          }
          return;
        }
        results.scenarios = await runLoads(scenarios, startServer, client, results);
        if (flag("mixed") || !only) {
          log("mixed: every scenario again, in turn, in one long-lived workerd");
          const everyTarget = scenarios.flatMap((s) => mixedTargets(targetsOf(s), s, quick));
          const shared = oneProcess(() => startServer({ id: "mixed" }, everyTarget, { mixed: true }));
          const meta = {};
          try {
            const mixed = await runLoads(scenarios, shared.start, client, meta, { mixed: true });
            results.mixed = { background: meta.background, processes: meta.processes, scenarios: mixed, sideBySide: sideBySide(results.scenarios, mixed) };
          } finally {
            await shared.stop();
          }
        }
        results.probes = PROBES.map((p) => ({ ...p }));
        const trips = roundTrip(results.scenarios);
        if (trips.length > 0) results.roundTrip = trips;
      } finally {
        await current?.stop();
        process.off("SIGINT", stopOnSignal);
        process.off("SIGTERM", stopOnSignal);
        log("workerd stopped");
      }
      rmSync(join(work, "storage"), { recursive: true, force: true });
    }
    // Its own workerd, after the main one stopped, so the two never compete for the CPU.
    if (overshoot) {
      log(`pre-counting overshoot: E = ${edgeCounts.join(", ")} isolates sharing one counter namespace, seeded traffic past the limit`);
      const { runtimeWarnings, ...measured } = await measureOvershoot({ floodgate: built.floodgate, workDir: join(work, "overshoot"), quick, edgeCounts, log });
      results.overshoot = measured;
      noteStopped("overshoot", runtimeWarnings);
    }
    if (scan) {
      const keys = Number(option("scan-keys", quick ? 30_000 : 1_000_000));
      log(`memory scan: ${keys} distinct keys into one counter object, 1-hour then 1-minute windows`);
      const rows = option("scan-rows", undefined)?.split(",");
      const { runtimeWarnings, ...measured } = await measureScan({ floodgate: built.floodgate, workDir: join(work, "scan"), keys, rows, log });
      results.scan = measured;
      noteStopped("scan", runtimeWarnings);
    }
    if (geo)
      results.geography = await measureGeography({
        built,
        workDir: join(work, "geography"),
        quick,
        only: option("geo-only", undefined)?.split(","),
        keys: option("geo-keys", undefined) === undefined ? undefined : Number(option("geo-keys", undefined)),
        log,
        noteStopped,
      });
    if (objectCosts) {
      log(
        "cost: thin keys, a hot key and a key scan from three regions (request.cf), and the direct path as a control; every object class counted (bench/lib/object-costs.mjs)",
      );
      const costStart = Date.now();
      results.objectCosts = await measureObjectCosts({
        floodgate: built.floodgate,
        workDir: join(work, "cost"),
        quick,
        only: option("cost-only", undefined)?.split(","),
        log,
        noteStopped,
      });
      results.objectCosts.elapsedSeconds = Math.round((Date.now() - costStart) / 1000);
    }
    if (llmStream)
      results.llmStream = await measureLlmStream({
        built,
        workDir: join(work, "llm-stream"),
        requests: quick ? 60 : 300,
        concurrency: 4,
        log,
        noteStopped,
      });
  }
  results.runtimeWarnings = tallyWarnings(stopped);

  if (!alone && !flag("skip-accuracy")) {
    log("accuracy: replaying the seeded traces through every algorithm and the exact oracle");
    const spec = { limit: 100, windowMs: 60_000 };
    const scale = quick ? 0.1 : 1;
    results.accuracy = [
      { name: "stress", description: "2,000 keys, base rates 0.01–3 × the limit, bursts × 4", ...replayAccuracy(spec, { keys: Math.round(2_000 * scale) }) },
      {
        name: "mostly under limit",
        description: "10,000 keys, base rates 0.01–0.3 × the limit, bursts × 4",
        ...replayAccuracy(spec, { keys: Math.round(10_000 * scale), maxRate: 0.3 }),
      },
    ];
  }

  if (!alone && !flag("skip-memory")) {
    log("memory: state per key, in the V8 heap and in SQLite");
    const child = spawnSync(
      process.execPath,
      ["--expose-gc", "--disable-warning=ExperimentalWarning", join(root, "bench", "lib", "memory.mjs"), ...(quick ? ["--quick"] : [])],
      { encoding: "utf8" },
    );
    if (child.status !== 0) throw new Error(`memory measurement failed:\n${child.stderr}`);
    results.memory = JSON.parse(child.stdout);
  }

  results.elapsedSeconds = Math.round((Date.now() - startedAt) / 1000);
  // Every run keeps its full raw document under the ignored bench/runs/.
  // Only a full run replaces the summary and chart bench/README.md shows; a quick
  // or partial run writes them beside the build, under the ignored bench/.work/.
  const full = !quick && !only && !alone && !argv.some((a) => a.startsWith("--skip-"));
  const runs = join(root, "bench", "runs");
  mkdirSync(runs, { recursive: true });
  const raw = join(runs, `${results.generatedAt.replace(/[:.]/g, "-")}${full ? "" : "-partial"}.json`);
  writeFileSync(raw, `${JSON.stringify(results, null, 2)}\n`);
  const out = full ? join(root, "bench") : work;
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, "results.json"), formatSummary(summarize(results)));
  if (results.scenarios) writeFileSync(join(out, "results.svg"), renderSvg(results));
  printReport(results);
  if (results.mixed) console.log(`${printMixed(results.mixed)}\n`);
  if (results.overshoot) console.log(`\n${printOvershoot(results.overshoot)}`);
  if (results.scenarios) console.log(`\n${printCost(results)}`);
  if (results.scan) console.log(`\n${printScan(results.scan)}`);
  if (results.geography) console.log(`\n${printGeography(results.geography)}`);
  if (results.objectCosts) console.log(`\n${printObjectCosts(results.objectCosts)}`);
  if (results.llmStream) console.log(`\n${printLlmStream(results.llmStream)}`);
  // Last before the paths, where it cannot scroll by unseen: the run does not fail on warnings, but says so.
  console.log(`\n${printWarnings(results.runtimeWarnings)}\n`);
  const shown = (f) => f.slice(root.length + 1);
  log(
    `done in ${results.elapsedSeconds} s: ${shown(join(out, "results.json"))}${results.scenarios ? `, ${shown(join(out, "results.svg"))}` : ""}; raw: ${shown(raw)}`,
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
