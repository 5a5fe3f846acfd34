#!/usr/bin/env node
/**
 * Where one long-lived floodgate isolate spends its time when every kind of
 * traffic passes through it (bench/README.md, "Where the time goes"): one
 * workerd serves floodgate, the origin and the bare worker; the scenarios
 * are loaded one after another in that same process (floodgate, then bare
 * or bare-429 on the same keys), and the floodgate isolate is profiled
 * during each of its loads. Samples are split by side: under a counter
 * object's frames (src/durable/counter-*, leases, slots, precount-sync,
 * src/algorithms) or the gateway's. Prints each scenario's ratio, the heap
 * after a collection, workerd's CPU per request (floodgate's and bare's, and
 * bare's over floodgate's), and self time by source and by function per side.
 *
 *   flock /work/bench.lock node bench/mixed-profile.mjs [out-dir]
 *   env: SECS (per load, default 3), CONNS (default 32), IDS (scenario ids, comma-separated; "no-counter" is the
 *   probe route with no limit), NOPROF=1 (ratios without the profiler)
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { SourceMap } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildWorkers, WORKERS } from "./lib/build.mjs";
import { keyArgs } from "./lib/keys.mjs";
import { runLoad } from "./lib/load.mjs";
import { watchProcessCpu } from "./lib/machine.mjs";
import { inspect } from "./lib/profile.mjs";
import { freePorts, startWorkerd, writeConfig } from "./lib/workerd.mjs";
import { PROBES, SCENARIOS } from "./scenarios.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
process.chdir(root);
process.env.WRANGLER_SEND_METRICS = "false";
const out = process.argv[2] ?? join(root, "bench", ".work", "mixed-profile");
const seconds = Number(process.env.SECS ?? 3);
const connections = Number(process.env.CONNS ?? 32);
const profiling = !process.env.NOPROF;
const DEFAULT_IDS = "recurring-1m,scan-1m,hot-key,blocked,limit-zero,precount,precount-hot,no-counter";
// A counter object's own code: samples under these frames are the objects' time.
const OBJECT_SIDE = /src\/durable\/(counter-object|counter-store|counter-cache|leases|slots|precount-sync)|src\/algorithms/;

mkdirSync(out, { recursive: true });
const built = await buildWorkers(
  root,
  join(out, "build"),
  WORKERS.filter((w) => ["origin", "bare", "floodgate"].includes(w.name)),
);
const toOrigin = (ports) => ({ ORIGIN_URL: `http://127.0.0.1:${ports.origin}` });
const services = { origin: { worker: built.origin }, bare: { worker: built.bare, vars: toOrigin }, floodgate: { worker: built.floodgate, vars: toOrigin } };
rmSync(join(out, "storage"), { recursive: true, force: true });
const { path, ports } = await writeConfig(join(out, "cfg"), services, join(out, "storage"));
let [inspectorPort] = await freePorts(1);
while (Object.values(ports).includes(inspectorPort)) [inspectorPort] = await freePorts(1);
const server = await startWorkerd(path, ports, join(out, "workerd.log"), { inspectorPort });
const bundle = built.floodgate.modules[0];
const map = new SourceMap(JSON.parse(readFileSync(join(built.floodgate.dir, `${bundle}.map`), "utf8")));
const session = await inspect(`ws://127.0.0.1:${inspectorPort}/floodgate`);

// workerd collects but never answers collectGarbage; commands run in order, so the read comes after it.
async function heapMiB() {
  session.send("HeapProfiler.collectGarbage");
  return (await session.send("Runtime.getHeapUsage")).usedSize / 2 ** 20;
}

const noCounter = PROBES.find((p) => p.id === "floodgate-no-counter");
const scenarios = (process.env.IDS ?? DEFAULT_IDS)
  .split(",")
  .map((id) => (id === "no-counter" ? { id, path: noCounter.path, keys: { kind: "recurring", keys: 1_000 } } : SCENARIOS.find((s) => s.id === id)));
// The bare worker's canned 429s exist for blocked and limit-zero; the hot key (mostly 429) is read against blocked's.
const bareOf = (s) => (s.id === "blocked" || s.id === "limit-zero" ? `/429${s.path}` : s.id === "hot-key" ? "/429/sharded/blocked" : s.path);
// workerd's CPU per request served (µs) beside the throughput: far steadier than req/s on a shared machine,
// whose other processes take turns from the load but not CPU from workerd. The origin's share is in both.
const load = async (port, urlPath, s, nonce) => {
  const cpu = watchProcessCpu(server.pid);
  const startedAt = performance.now();
  const result = await runLoad({
    client: "wrk",
    url: `http://127.0.0.1:${port}${urlPath}`,
    connections,
    seconds,
    keyArgs: keyArgs(s.keys, nonce, 0),
    serverPid: server.pid,
  });
  const cpuSeconds = (cpu.stop() / 100) * ((performance.now() - startedAt) / 1000);
  return { ...result, cpuUs: (1e6 * cpuSeconds) / result.requests };
};

function sourceOf(frame) {
  if (!frame.url) return frame.functionName.startsWith("(") ? frame.functionName : `runtime API: ${frame.functionName}`;
  if (!frame.url.endsWith(bundle)) return `runtime JS: ${frame.url}`;
  const source = map.findEntry(frame.lineNumber, frame.columnNumber)?.originalSource ?? "?";
  const modules = source.lastIndexOf("node_modules/");
  const src = source.lastIndexOf("src/");
  if (modules >= 0)
    return source
      .slice(modules + 13)
      .split("/")
      .slice(0, 2)
      .join("/");
  return src >= 0 ? source.slice(src) : source.split("/").slice(-2).join("/");
}

const tally = { gateway: new Map(), object: new Map(), gatewayFns: new Map(), objectFns: new Map(), total: 0 };
const bump = (m, key) => m.set(key, (m.get(key) ?? 0) + 1);
function add(profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const sides = new Map();
  const onObjectSide = (id) => {
    if (sides.has(id)) return sides.get(id);
    const frame = byId.get(id).callFrame;
    const mine = frame.url.endsWith(bundle) && OBJECT_SIDE.test(sourceOf(frame));
    const side = mine || (parent.has(id) && onObjectSide(parent.get(id)));
    sides.set(id, side);
    return side;
  };
  for (const id of profile.samples) {
    const frame = byId.get(id).callFrame;
    const source = sourceOf(frame);
    const object = onObjectSide(id);
    const line = frame.url.endsWith(bundle) ? `:${(map.findEntry(frame.lineNumber, frame.columnNumber)?.originalLine ?? -1) + 1}` : "";
    bump(object ? tally.object : tally.gateway, source);
    bump(object ? tally.objectFns : tally.gatewayFns, `${frame.functionName || "(anonymous)"} ${source}${line}`);
    tally.total += 1;
  }
}

const rows = [];
const firstHeap = await heapMiB();
if (profiling) await session.send("Profiler.setSamplingInterval", { interval: 200 });
if (profiling) await session.send("Profiler.enable");
for (const s of scenarios) {
  if (profiling) await session.send("Profiler.start");
  const f = await load(ports.floodgate, s.path, s, `mixed-f-${Date.now()}`);
  if (profiling) add((await session.send("Profiler.stop")).profile);
  const b = await load(ports.bare, bareOf(s), s, `mixed-b-${Date.now()}`);
  const row = {
    id: s.id,
    floodgate: Math.round(f.rps),
    bare: Math.round(b.rps),
    ratio: +(f.rps / b.rps).toFixed(3),
    cpuUsPerRequest: { floodgate: Math.round(f.cpuUs), bare: Math.round(b.cpuUs) },
    // Bare's CPU per request over floodgate's: the throughput ratio a saturated machine would give.
    cpuRatio: +(b.cpuUs / f.cpuUs).toFixed(3),
    ok: f.ok,
    limited: f.limited,
    heapMiB: +(await heapMiB()).toFixed(1),
  };
  rows.push(row);
  console.log(JSON.stringify(row));
}
const share = (n) => `${((100 * n) / tally.total).toFixed(1).padStart(5)} %`;
const top = (m, n) =>
  [...m.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, v]) => `${share(v)}  ${k}`)
    .join("\n");
const sum = (m) => [...m.values()].reduce((a, b) => a + b, 0);
const report = [
  `heap after a collection: ${firstHeap.toFixed(1)} MiB before the first load`,
  ...(profiling
    ? [
        `gateway side ${share(sum(tally.gateway))}, object side ${share(sum(tally.object))} of ${tally.total} samples`,
        `--- gateway side by source\n${top(tally.gateway, 20)}`,
        `--- object side by source\n${top(tally.object, 10)}`,
        `--- gateway side by function\n${top(tally.gatewayFns, 25)}`,
        `--- object side by function\n${top(tally.objectFns, 12)}`,
      ]
    : []),
].join("\n");
console.log(report);
writeFileSync(join(out, "report.txt"), `${rows.map((r) => JSON.stringify(r)).join("\n")}\n${report}\n`);
session.close();
await server.stop();
