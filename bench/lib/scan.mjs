/**
 * The memory scan: N distinct keys (1,000,000 in a full run) on 1-hour
 * windows, then the same on 1-minute windows, then at most 200,000 keys of
 * 4 KB on 1-hour windows, sent to one counter object in its own workerd
 * (bench/workers/scan.ts). Reports the object's counters in memory, the
 * bytes it estimates they take (`memoryBytes`, bounded by MEMORY_BYTES) and rows stored, the peak V8 heap of the isolate the object lives
 * in (read over workerd's inspector: the object's own memory, with the
 * worker's code), the process's peak RSS (which adds SQLite's page cache and
 * the runtime's buffers), keys per second for each window, and how many
 * paged-out keys decided exactly when hit again.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { sampleHeap } from "./heap.mjs";
import { freePorts, startWorkerd, writeConfig } from "./workerd.mjs";

const SLICE = 20_000;

/** The rows: a name, the window, the key length (0: short keys like `scan-12`), and the most keys (long keys take longer to send). */
export const SCAN_ROWS = [
  { id: "hour", name: "1 hour", windowMs: 3_600_000, keyBytes: 0, maxKeys: Infinity },
  { id: "minute", name: "1 minute", windowMs: 60_000, keyBytes: 0, maxKeys: Infinity },
  { id: "hour-4k", name: "1 hour, 4 KB keys", windowMs: 3_600_000, keyBytes: 4_096, maxKeys: 200_000 },
];
const rssMiB = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? NaN) / 1024;

/**
 * Run the scan for each row (`rows`: ids of SCAN_ROWS, default all);
 * `keys` distinct keys each, at most the row's `maxKeys`. The result
 * carries the runtime warnings of the scan's workerd log
 * (`runtimeWarnings`, bench/lib/warnings.mjs).
 *
 * @example
 * const scan = await measureScan({ floodgate: built.floodgate, workDir, keys: 1_000_000, log });
 */
export async function measureScan({ floodgate, workDir, keys: allKeys, rows = SCAN_ROWS.map((r) => r.id), log }) {
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
    for (const { name, windowMs, keyBytes, maxKeys } of SCAN_ROWS.filter((r) => rows.includes(r.id))) {
      const keys = Math.min(allKeys, maxKeys);
      let peak = rssMiB(server.pid);
      const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(server.pid))), 200);
      const heap = await sampleHeap(inspectorPort, "floodgate");
      const started = Date.now();
      for (let from = 0; from < keys; from += SLICE) await post(`from=${from}&count=${Math.min(SLICE, keys - from)}&window=${windowMs}&keyBytes=${keyBytes}`);
      const seconds = (Date.now() - started) / 1000;
      clearInterval(sampler);
      const { peakMiB: peakHeapMiB, firstMiB: firstHeapMiB, lastMiB: lastHeapMiB } = await heap.stop();
      // The first keys were paged out long ago: hit them again and count exact answers.
      const sample = Math.min(10_000, keys);
      const { exact, stats } = await post(`from=0&count=${sample}&window=${windowMs}&keyBytes=${keyBytes}&check=1&stats=1`);
      windows[name] = {
        windowMs,
        keys,
        seconds,
        keysPerSecond: keys / seconds,
        peakRssMiB: peak,
        peakHeapMiB,
        firstHeapMiB,
        lastHeapMiB,
        sample,
        exact,
        keyBytes,
        memory: stats.memory,
        memoryBytes: stats.memoryBytes,
        stored: stats.stored,
        // Each row has an object of its own (bench/workers/scan.ts), fresh: its rows written are this row's.
        rowsWrittenPer1000Keys: (stats.rowsWritten / keys) * 1000,
      };
      log(
        `  scan of ${keys} keys, ${name} windows: ${Math.round(keys / seconds)} keys/s, heap ${firstHeapMiB.toFixed(1)} MiB at start, ${peakHeapMiB.toFixed(1)} at peak, ${lastHeapMiB.toFixed(1)} at end, peak RSS ${peak.toFixed(0)} MiB, ${exact}/${sample} exact on read-back`,
      );
    }
    measured = {
      startRssMiB: startRss,
      endRssMiB: rssMiB(server.pid),
      windows,
      hourOverMinute: windows["1 hour"] && windows["1 minute"] ? windows["1 hour"].keysPerSecond / windows["1 minute"].keysPerSecond : undefined,
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
      `| ${name} | ${w.keys.toLocaleString("en-US")} | ${Math.round(w.keysPerSecond).toLocaleString("en-US")} | ${w.memory.toLocaleString("en-US")} | ${w.memoryBytes === undefined ? "–" : (w.memoryBytes / 2 ** 20).toFixed(1)} | ${w.stored.toLocaleString("en-US")} | ${w.rowsWrittenPer1000Keys?.toFixed(0) ?? "–"} | ${w.peakHeapMiB?.toFixed(1) ?? "–"} | ${w.peakRssMiB.toFixed(0)} | ${w.exact.toLocaleString("en-US")} of ${w.sample.toLocaleString("en-US")} |`,
  );
  return [
    `Memory scan, one counter object in its own workerd (RSS at start ${scan.startRssMiB.toFixed(0)} MiB, at end ${scan.endRssMiB.toFixed(0)} MiB${scan.hourOverMinute === undefined ? "" : `; 1-hour over 1-minute throughput ${scan.hourOverMinute.toFixed(2)}×`}):`,
    "",
    "| window | distinct keys | keys/s | counters in memory | state MiB (the object's estimate) | rows stored | rows written / 1,000 keys | peak heap MiB (the object's isolate) | peak RSS MiB (the process) | exact on read-back |",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ...rows,
  ].join("\n");
}
