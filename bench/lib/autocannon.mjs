/**
 * The load generator used when `wrk` is not installed: autocannon in its own
 * process, with the same key patterns and the same one-line JSON result as
 * bench/lib/load.lua.
 *
 * Usage: node bench/lib/autocannon.mjs <url> <connections> <seconds> <max responses> <pattern args…>
 */
import autocannon from "autocannon";
import { keySource } from "./keys.mjs";

const [url, connections, seconds, maxResponses, ...args] = process.argv.slice(2);
const nextKey = keySource(args, 1);
const counts = { ok: 0, limited: 0, failopen: 0, other: 0 };

const CF = [
  '{"colo":"IAD","continent":"NA","country":"US"}',
  '{"colo":"FRA","continent":"EU","country":"DE"}',
  '{"colo":"SIN","continent":"AS","country":"SG"}',
];
let sent = 0;

const instance = autocannon({
  url,
  connections: Number(connections),
  duration: Number(seconds),
  maxOverallRequests: Number(maxResponses),
  timeout: 10,
  requests: [
    {
      method: "GET",
      setupRequest(request) {
        // request.cf from three colos in turn, as bench/lib/load.lua sends it (production's shape).
        return { ...request, headers: { ...request.headers, "x-api-key": nextKey(), "cf-blob": CF[sent++ % 3] } };
      },
      onResponse(status, _body, _context, headers = {}) {
        // floodgate marks requests it let through unchecked (FAILURE_MODE=open).
        if (status === 200) counts[(headers["x-ratelimit-decision"] ?? headers["X-RateLimit-Decision"]) ? "failopen" : "ok"]++;
        else if (status === 429) counts.limited++;
        else counts.other++;
      },
    },
  ],
});

instance.on("done", (result) => {
  const line = {
    requests: result.requests.total,
    duration_us: Math.round(result.duration * 1e6),
    p50_us: Math.round(result.latency.p50 * 1000),
    p99_us: Math.round(result.latency.p99 * 1000),
    ...counts,
    socket_errors: result.errors,
    timeouts: result.timeouts,
  };
  process.stdout.write(`BENCH_RESULT ${JSON.stringify(line)}\n`);
});
