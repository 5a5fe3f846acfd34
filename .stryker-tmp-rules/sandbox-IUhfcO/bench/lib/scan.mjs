/**
 * The memory scan: N distinct keys (1,000,000 in a full run) on 1-hour
 * windows, then the same on 1-minute windows, sent to one counter object in
 * its own workerd (bench/workers/scan.ts). Reports the object's counters in
 * memory and rows stored, the peak V8 heap of the isolate the object lives
 * in (read over workerd's inspector: the object's own memory, with the
 * worker's code), the process's peak RSS (which adds SQLite's page cache and
 * the runtime's buffers), keys per second for each window, and how many
 * paged-out keys decided exactly when hit again.
 */
// @ts-nocheck

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { sampleHeap } from "./heap.mjs";
import { freePorts, startWorkerd, writeConfig } from "./workerd.mjs";

const SLICE = 20_000;
const rssMiB = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? NaN) / 1024;

/**
 * Run the scan for both windows; `keys` distinct keys each. The result
 * carries the runtime warnings of the scan's workerd log
 * (`runtimeWarnings`, bench/lib/warnings.mjs).
 *
 * @example
 * const scan = await measureScan({ floodgate: built.floodgate, workDir, keys: 1_000_000, log });
 */
export async function measureScan({ floodgate, workDir, keys, log }) {
  const { path, ports } = await writeConfig(join(workDir, "build"), { floodgate: { worker: floodgate, vars: {} } }, join(workDir, "storage"));
  let [inspectorPort] = await freePorts(1);
  while (Object.values(ports).includes(inspectorPort)) [inspectorPort] = await freePorts(1);
  const server = await startWorkerd(path, ports, join(workDir, "workerd-scan.log"), { inspectorPort });
  const base = `http://127.0.0.1:${ports.floodgate}/__bench/scan`;
  const post = async (query) => (await fetch(`${base}?${query}`, { method: "POST" })).json();
  let measured;
  let runtimeWarnings;
  try {
    const startRss = rssMiB(server.pid);
    const windows = {};
    for (const [name, windowMs] of [
      ["1 hour", 3_600_000],
      ["1 minute", 60_000],
    ]) {
      let peak = rssMiB(server.pid);
      const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(server.pid))), 200);
      const heap = await sampleHeap(inspectorPort, "floodgate");
      const started = Date.now();
      for (let from = 0; from < keys; from += SLICE) await post(`from=${from}&count=${Math.min(SLICE, keys - from)}&window=${windowMs}`);
      const seconds = (Date.now() - started) / 1000;
      clearInterval(sampler);
      const { peakMiB: peakHeapMiB } = await heap.stop();
      // The first keys were paged out long ago: hit them again and count exact answers.
      const sample = Math.min(10_000, keys);
      const { exact, stats } = await post(`from=0&count=${sample}&window=${windowMs}&check=1&stats=1`);
      windows[name] = {
        windowMs,
        keys,
        seconds,
        keysPerSecond: keys / seconds,
        peakRssMiB: peak,
        peakHeapMiB,
        sample,
        exact,
        memory: stats.memory,
        stored: stats.stored,
      };
      log(
        `  scan of ${keys} keys, ${name} windows: ${Math.round(keys / seconds)} keys/s, peak heap ${peakHeapMiB.toFixed(1)} MiB, peak RSS ${peak.toFixed(0)} MiB, ${exact}/${sample} exact on read-back`,
      );
    }
    measured = {
      startRssMiB: startRss,
      endRssMiB: rssMiB(server.pid),
      windows,
      hourOverMinute: windows["1 hour"].keysPerSecond / windows["1 minute"].keysPerSecond,
    };
  } finally {
    runtimeWarnings = await server.stop();
  }
  return { ...measured, runtimeWarnings };
}

/**
 * The scan as Markdown.
 *
 * @example
 * console.log(printScan(results.scan));
 */
export function printScan(scan) {
  const rows = Object.entries(scan.windows).map(
    ([name, w]) =>
      `| ${name} | ${w.keys.toLocaleString("en-US")} | ${Math.round(w.keysPerSecond).toLocaleString("en-US")} | ${w.memory.toLocaleString("en-US")} | ${w.stored.toLocaleString("en-US")} | ${w.peakHeapMiB?.toFixed(1) ?? "–"} | ${w.peakRssMiB.toFixed(0)} | ${w.exact.toLocaleString("en-US")} of ${w.sample.toLocaleString("en-US")} |`,
  );
  return [
    `Memory scan, one counter object in its own workerd (RSS at start ${scan.startRssMiB.toFixed(0)} MiB, at end ${scan.endRssMiB.toFixed(0)} MiB; 1-hour over 1-minute throughput ${scan.hourOverMinute.toFixed(2)}×):`,
    "",
    "| window | distinct keys | keys/s | counters in memory | rows stored | peak heap MiB (the object's isolate) | peak RSS MiB (the process) | exact on read-back |",
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ...rows,
  ].join("\n");
}
