/**
 * One load run: a fixed number of connections for a fixed time against one
 * URL on 127.0.0.1, from a separate process (wrk when installed, else
 * autocannon), with per-request keys from a key pattern. Every run is
 * bounded twice: by its duration and by a cap on responses, and the process
 * is killed if it outlives its duration by 30 s.
 */
import { spawn, spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { watchForeignCpu } from "./machine.mjs";

const here = dirname(fileURLToPath(import.meta.url));

/** The most responses one run may take, whatever its duration (a safety bound, far above what 2 cores serve). */
export const MAX_RESPONSES_PER_RUN = 2_000_000;

/**
 * Which load generator to use: `wrk` if it runs here, else autocannon.
 *
 * @example
 * loadClient("auto"); // { name: "wrk", version: "4.1.0" }
 */
export function loadClient(preference = "auto") {
  if (preference !== "autocannon") {
    const probe = spawnSync("wrk", ["--version"], { encoding: "utf8" });
    const match = /wrk (?:debian\/)?([\w.+-]+)/.exec(`${probe.stdout}${probe.stderr}`);
    if (!probe.error && match) return { name: "wrk", version: match[1] };
    if (preference === "wrk") throw new Error("--client wrk: wrk is not installed (apt-get install -y wrk)");
  }
  return {
    name: "autocannon",
    version: JSON.parse(
      spawnSync(process.execPath, ["-p", "JSON.stringify(require('autocannon/package.json').version)"], { encoding: "utf8", cwd: here }).stdout,
    ),
  };
}

function commandFor(client, url, connections, seconds, keyArgs) {
  if (client === "wrk") {
    const script = join(here, "load.lua");
    return ["wrk", ["-t1", `-c${connections}`, `-d${seconds}s`, "--timeout", "10s", "-s", script, url, "--", String(MAX_RESPONSES_PER_RUN), ...keyArgs]];
  }
  return [process.execPath, [join(here, "autocannon.mjs"), url, String(connections), String(seconds), String(MAX_RESPONSES_PER_RUN), ...keyArgs]];
}

/**
 * Run one load and return its counts, latency percentiles and wall-clock span.
 *
 * @example
 * const r = await runLoad({ client: "wrk", url: "http://127.0.0.1:8787/x", connections: 50, seconds: 4, keyArgs: ["hot", "n1"] });
 * r.rps; // requests per second; r.p50Ms, r.p99Ms; r.ok, r.limited; r.foreignCpuPercent
 * // serverPid (or serverPids, for several workerd): the bench's own processes, left out of foreignCpuPercent.
 */
export function runLoad({ client, url, connections, seconds, keyArgs, serverPid, serverPids = [serverPid] }) {
  const [command, args] = commandFor(client, url, connections, seconds, keyArgs);
  return new Promise((resolve, reject) => {
    const startedAt = Date.now();
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    child.stderr.on("data", (chunk) => (err += chunk));
    const killer = setTimeout(() => child.kill("SIGKILL"), (seconds + 30) * 1000);
    // Other processes' CPU during the load, read just before the client exits
    // (its own ticks are gone once it has).
    const watch = watchForeignCpu([...serverPids, child.pid].filter(Boolean));
    let foreignCpuPercent = NaN;
    const sampler = setTimeout(() => (foreignCpuPercent = watch.stop()), Math.max(100, seconds * 1000 - 150));
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(killer);
      clearTimeout(sampler);
      const endedAt = Date.now();
      const line = out.split("\n").find((l) => l.startsWith("BENCH_RESULT "));
      if (!line) return reject(new Error(`${command} exited ${code} without a result:\n${out}\n${err}`));
      const r = JSON.parse(line.slice("BENCH_RESULT ".length));
      resolve({
        requests: r.requests,
        rps: r.requests / (r.duration_us / 1e6),
        p50Ms: r.p50_us / 1000,
        p99Ms: r.p99_us / 1000,
        ok: r.ok,
        limited: r.limited,
        failOpen: r.failopen,
        other: r.other,
        socketErrors: r.socket_errors,
        timeouts: r.timeouts,
        startedAt,
        endedAt,
        foreignCpuPercent,
      });
    });
  });
}
