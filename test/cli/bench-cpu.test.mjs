// The bench's CPU-per-request arithmetic (bench/lib/cpu.mjs): parsing
// /proc/<pid>/stat, µs per request, median and min–max over rounds, and the
// ratios taken round by round. Pure functions, so plain Node (node:test):
//   ./node_modules/.bin/node --test test/cli/bench-cpu.test.mjs
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { cpuRatiosByRound, cpuUsPerRequest, parseProcStat, processCpuTicks, spread, summarizeCpu } from "../../bench/lib/cpu.mjs";

// A real line's shape: pid, (comm), state, then fields 4 … 13, utime 14, stime 15, cutime 16, cstime 17, and more.
const statLine = (comm, [utime, stime, cutime, cstime]) =>
  `4242 (${comm}) S 1 4242 4242 0 -1 4194560 1234 56 7 8 ${utime} ${stime} ${cutime} ${cstime} 20 0 9 0 36408 3133440 416 18446744073709551615`;

test("parseProcStat reads utime, stime, cutime and cstime (fields 14–17) and sums them", () => {
  assert.deepEqual(parseProcStat(statLine("workerd", [250, 30, 2, 1])), { utime: 250, stime: 30, cutime: 2, cstime: 1, ticks: 283 });
});

test("parseProcStat counts fields from the command name's last parenthesis, whatever the name holds", () => {
  assert.equal(parseProcStat(statLine("a b) S 9 (c", [10, 20, 30, 40])).ticks, 100);
});

test("parseProcStat refuses a line that is not a stat line", () => {
  assert.throws(() => parseProcStat("not a stat line"), /not a \/proc\/<pid>\/stat line/);
  assert.throws(() => parseProcStat("1 (x) S 1 2"), /no CPU times/);
});

test("processCpuTicks reads this process's own stat, and NaN for a process that is gone", () => {
  const own = parseProcStat(readFileSync("/proc/self/stat", "utf8")).ticks;
  const read = processCpuTicks(process.pid);
  assert.ok(read >= own - 1 && read <= own + 100, `${read} ticks, /proc/self/stat said ${own}`);
  assert.ok(Number.isNaN(processCpuTicks(2 ** 30)));
});

test("cpuUsPerRequest: ticks of CPU over requests served, in µs", () => {
  assert.equal(cpuUsPerRequest(150, 3_000, 100), 500);
  assert.equal(cpuUsPerRequest(3, 1_000, 1_000), 3);
  assert.ok(Number.isNaN(cpuUsPerRequest(40, 0, 100)), "nothing served: no figure");
  assert.ok(Number.isNaN(cpuUsPerRequest(Number.NaN, 10, 100)), "process gone: no figure");
});

test("spread: median (mean of the middle two for an even count), min and max, ignoring non-finite rounds", () => {
  assert.deepEqual(spread([420, 380, 510]), { median: 420, min: 380, max: 510 });
  assert.deepEqual(spread([4, 1, 3, 2]), { median: 2.5, min: 1, max: 4 });
  assert.deepEqual(spread([Number.NaN, 7]), { median: 7, min: 7, max: 7 });
  assert.deepEqual(spread([]), { median: Number.NaN, min: Number.NaN, max: Number.NaN });
});

test("cpuRatiosByRound pairs each round with the same round of the other target", () => {
  const floodgate = [
    { round: 1, cpuUs: 600 },
    { round: 0, cpuUs: 900 },
    { round: 2, cpuUs: 500 },
  ];
  const bare = [
    { round: 0, cpuUs: 300 },
    { round: 1, cpuUs: 200 },
  ];
  assert.deepEqual(cpuRatiosByRound(floodgate, bare), [3, 3]);
  assert.deepEqual(cpuRatiosByRound(floodgate, undefined), []);
});

test("summarizeCpu: each target's CPU per request and its ratios to bare and to the peer, round by round", () => {
  const byTarget = new Map([
    [
      "bare",
      [
        { round: 0, cpuUs: 200 },
        { round: 1, cpuUs: 400 },
        { round: 2, cpuUs: 300 },
      ],
    ],
    [
      "floodgate",
      [
        { round: 0, cpuUs: 500 },
        { round: 1, cpuUs: 600 },
        { round: 2, cpuUs: 900 },
      ],
    ],
    [
      "peer",
      [
        { round: 0, cpuUs: 1_000 },
        { round: 1, cpuUs: 1_200 },
        { round: 2, cpuUs: 1_800 },
      ],
    ],
  ]);
  const cpu = summarizeCpu(byTarget);
  // Ratios round by round (2.5, 1.5, 3), not the ratio of the medians (600 / 300 = 2).
  assert.deepEqual(cpu.floodgate, {
    cpuUsPerRequest: 600,
    cpuUsPerRequestMin: 500,
    cpuUsPerRequestMax: 900,
    cpuToBare: 2.5,
    cpuToBareMin: 1.5,
    cpuToBareMax: 3,
    cpuToPeer: 0.5,
    cpuToPeerMin: 0.5,
    cpuToPeerMax: 0.5,
  });
  assert.deepEqual(Object.keys(cpu.bare), ["cpuUsPerRequest", "cpuUsPerRequestMin", "cpuUsPerRequestMax", "cpuToPeer", "cpuToPeerMin", "cpuToPeerMax"]);
  assert.equal(cpu.peer.cpuToBare, 5); // rounds 5, 3, 6
});
