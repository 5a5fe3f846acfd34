/**
 * The machine the figures come from, and how busy it is with other work.
 * A 2-core machine shared with a test run or a build gives smaller and
 * noisier numbers; the bench measures the CPU other processes use during
 * each load (everything but workerd and the load client), repeats runs that
 * shared the machine, and reports what it saw rather than hide it.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { cpus, release, totalmem } from "node:os";
import { processCpuTicks, TICKS_PER_SECOND } from "./cpu.mjs";

/**
 * CPU model, cores, memory, OS, runtime versions and the git tree.
 *
 * @example
 * machine({ workerd: "1.20261117.1", loadClient: "wrk 4.1.0" }).cores; // 2
 */
export function machine(extra) {
  const git = (args) => spawnSync("git", args, { encoding: "utf8" }).stdout.trim();
  return {
    cpu: cpus()[0]?.model.trim() ?? "unknown",
    cores: cpus().length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    os: `${process.platform} ${release()}`,
    node: process.version,
    ...extra,
    commit: git(["rev-parse", "--short", "HEAD"]),
    dirtyTree: git(["status", "--porcelain"]) !== "",
  };
}

/** CPU time (clock ticks) a process has used so far, or 0 once it is gone. */
function processTicks(pid) {
  const ticks = processCpuTicks(pid);
  return Number.isFinite(ticks) ? ticks : 0;
}

/**
 * Start watching the CPU: `stop()` returns the share of all cores that
 * processes other than `pids` used in between (NaN where /proc is missing).
 * This is how a load run knows whether someone else's build or test run
 * shared the machine with it.
 *
 * @example
 * const watch = watchForeignCpu([workerdPid, wrkPid]);
 * … load …
 * watch.stop(); // 2.5 (%)
 */
export function watchForeignCpu(pids) {
  let before;
  try {
    before = { ...cpuTimes(), ours: pids.reduce((n, pid) => n + processTicks(pid), 0) };
  } catch {
    return { stop: () => NaN };
  }
  return {
    stop() {
      const after = { ...cpuTimes(), ours: pids.reduce((n, pid) => n + processTicks(pid), 0) };
      const total = after.total - before.total;
      const busy = total - (after.idle - before.idle);
      return total > 0 ? Math.max(0, (100 * (busy - (after.ours - before.ours))) / total) : NaN;
    },
  };
}

/**
 * Watch one process's own CPU use (or several processes' together), in %
 * of one core (workerd between loads: alarms and other deferred work of
 * earlier runs show here).
 *
 * @example
 * const watch = watchProcessCpu(workerdPid); // or watchProcessCpu([pidA, pidB])
 * … 250 ms with no load …
 * watch.stop(); // 0 when workerd is idle, ~40 while alarms of a previous run fire
 */
export function watchProcessCpu(pids) {
  const ticks = () => [pids].flat().reduce((n, pid) => n + processTicks(pid), 0);
  const start = { ticks: ticks(), at: performance.now() };
  return {
    stop() {
      const seconds = (performance.now() - start.at) / 1000;
      return seconds > 0 ? (100 * (ticks() - start.ticks)) / TICKS_PER_SECOND / seconds : NaN;
    },
  };
}

function cpuTimes() {
  const fields = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
  const idle = fields[3] + (fields[4] ?? 0);
  return { idle, total: fields.reduce((a, b) => a + b, 0) };
}
