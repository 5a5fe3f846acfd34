/**
 * CPU time per request (bench/README.md, "CPU per request"): the CPU a
 * workerd process used (user + system, its waited-for children included,
 * from /proc/<pid>/stat) over the requests it served. Each side of a
 * scenario runs in a workerd of its own, so the figure is that side's own,
 * whatever the load generator and the origin use in their processes.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";

/**
 * The CPU fields of one `/proc/<pid>/stat` line, in clock ticks. The
 * command name (field 2) is in parentheses and may itself hold spaces or
 * parentheses, so the fields are counted from its last ")".
 *
 * @example
 * parseProcStat("4242 (workerd) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 30 2 1 20 0 9 0");
 * // { utime: 250, stime: 30, cutime: 2, cstime: 1, ticks: 283 }
 */
export function parseProcStat(line) {
  const close = line.lastIndexOf(")");
  if (close < 0) throw new Error(`not a /proc/<pid>/stat line: "${line.slice(0, 60)}"`);
  // After ") " come field 3 (state) onwards; utime, stime, cutime and cstime are fields 14 to 17.
  const fields = line
    .slice(close + 2)
    .trim()
    .split(/\s+/);
  const [utime, stime, cutime, cstime] = fields.slice(11, 15).map(Number);
  if (![utime, stime, cutime, cstime].every(Number.isInteger)) throw new Error(`no CPU times in /proc/<pid>/stat line: "${line.slice(0, 60)}"`);
  return { utime, stime, cutime, cstime, ticks: utime + stime + cutime + cstime };
}

/** Clock ticks per second (`getconf CLK_TCK`, 100 on Linux unless it fails to say). */
export const TICKS_PER_SECOND = (() => {
  const answer = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout?.trim());
  return Number.isInteger(answer) && answer > 0 ? answer : 100;
})();

/**
 * CPU ticks process `pid` and its waited-for children have used so far, or
 * NaN when the process is gone (or there is no /proc).
 *
 * @example
 * processCpuTicks(workerdPid); // 1523
 */
export function processCpuTicks(pid) {
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, "utf8")).ticks;
  } catch {
    return NaN;
  }
}

/**
 * Microseconds of CPU per request: `ticks` of CPU over `requests` served
 * (NaN when nothing was served).
 *
 * @example
 * cpuUsPerRequest(150, 3000); // 500 (1.5 s of CPU over 3,000 requests, at 100 ticks a second)
 */
export function cpuUsPerRequest(ticks, requests, ticksPerSecond = TICKS_PER_SECOND) {
  return requests > 0 && Number.isFinite(ticks) ? (ticks * 1e6) / ticksPerSecond / requests : NaN;
}

/**
 * Median, least and greatest of the finite values (NaN for each when there are none).
 *
 * @example
 * spread([420, 380, 510]); // { median: 420, min: 380, max: 510 }
 */
export function spread(values) {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return { median: NaN, min: NaN, max: NaN };
  const mid = sorted.length >> 1;
  return { median: sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2, min: sorted[0], max: sorted.at(-1) };
}

/**
 * One target's CPU per request over another's, round by round (only rounds
 * both have), for `spread`.
 *
 * @example
 * cpuRatiosByRound([{ round: 0, cpuUs: 600 }, { round: 1, cpuUs: 500 }], [{ round: 0, cpuUs: 300 }, { round: 1, cpuUs: 250 }]);
 * // [2, 2]
 */
export function cpuRatiosByRound(runs, otherRuns) {
  return runs.flatMap((r) => {
    const other = otherRuns?.find((o) => o.round === r.round);
    return other ? [r.cpuUs / other.cpuUs] : [];
  });
}

/**
 * Per target, the CPU figures of the table: its CPU per request (median,
 * min and max over rounds) and, round by round before the median, its CPU
 * over bare's and over the peer's (`cpuToBare`, `cpuToPeer`, each with its
 * min and max). Rounds whose process CPU could not be read are left out.
 *
 * @example
 * summarizeCpu(new Map([["bare", [{ round: 0, cpuUs: 300 }]], ["floodgate", [{ round: 0, cpuUs: 600 }]]])).floodgate;
 * // { cpuUsPerRequest: 600, cpuUsPerRequestMin: 600, cpuUsPerRequestMax: 600, cpuToBare: 2, cpuToBareMin: 2, cpuToBareMax: 2 }
 */
export function summarizeCpu(byTarget) {
  const out = {};
  for (const [id, runs] of byTarget) {
    const own = spread(runs.map((r) => r.cpuUs));
    const figures = { cpuUsPerRequest: own.median, cpuUsPerRequestMin: own.min, cpuUsPerRequestMax: own.max };
    for (const [other, name] of [
      ["bare", "cpuToBare"],
      ["peer", "cpuToPeer"],
    ]) {
      if (id === other || !byTarget.has(other)) continue;
      const ratio = spread(cpuRatiosByRound(runs, byTarget.get(other)));
      Object.assign(figures, { [name]: ratio.median, [`${name}Min`]: ratio.min, [`${name}Max`]: ratio.max });
    }
    out[id] = figures;
  }
  return out;
}
