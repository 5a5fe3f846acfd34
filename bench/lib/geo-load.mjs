#!/usr/bin/env node
/**
 * The geography's load process (bench/lib/geography.mjs): open loop, rate
 * driven. Reads a plan (JSON file: targets per region, a path, and events
 * `[atMs, region, key]` sorted by time), sends each event at its time to
 * floodgate of its region and (every `bareEvery`th event) at the same
 * moment to the bare worker of its region, whatever is still in flight (a closed loop such as wrk's would
 * send less when answers slow down, and hide the latency that caused it).
 * Connections are kept alive, at most `MAX_SOCKETS` per target (beyond
 * that requests wait in the pool, still timed from their schedule). Latency
 * counts from the event's scheduled time, so a late send counts against
 * both targets. Writes one record per request to the output file:
 * `[target (0 floodgate, 1 bare), region, key, seq (the key's nth request from that region), latencyUs, status (0: no answer), failOpen (0/1), sendLagUs]`.
 *
 *   node bench/lib/geo-load.mjs plan.json out.json
 */
import { readFileSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { performance } from "node:perf_hooks";

/** No answer within this long counts as status 0. */
const TIMEOUT_MS = 15_000;
/** Connections per target at most: a stalled server must not take every file descriptor of the machine (open loop keeps sending). */
const MAX_SOCKETS = 128;

const [planFile, outFile] = process.argv.slice(2);
const plan = JSON.parse(readFileSync(planFile, "utf8"));
const agents = new Map();
const agentOf = (port) => {
  if (!agents.has(port)) agents.set(port, new Agent({ keepAlive: true, maxSockets: MAX_SOCKETS, maxFreeSockets: MAX_SOCKETS }));
  return agents.get(port);
};

const records = [];
const seqs = new Map();
let pending = 0;
let scheduled = 0;
let done;
const finished = new Promise((resolve) => (done = resolve));

function send(target, port, region, key, seq, atMs, t0) {
  pending += 1;
  const lagUs = Math.round((performance.now() - t0 - atMs) * 1000);
  const req = request({ host: "127.0.0.1", port, path: plan.path, agent: agentOf(port), headers: { "x-api-key": plan.keys[key] } }, (res) => {
    res.resume();
    res.on("end", () => {
      const failOpen = res.statusCode === 200 && res.headers["x-ratelimit-decision"] !== undefined ? 1 : 0;
      settle([target, region, key, seq, Math.round((performance.now() - t0 - atMs) * 1000), res.statusCode, failOpen, lagUs]);
    });
    res.on("error", () => settle([target, region, key, seq, 0, 0, 0, lagUs]));
  });
  req.setTimeout(TIMEOUT_MS, () => req.destroy(new Error("timeout")));
  req.on("error", () => settle([target, region, key, seq, 0, 0, 0, lagUs]));
  req.end();
}

function settle(record) {
  records.push(record);
  pending -= 1;
  if (pending === 0 && scheduled === plan.events.length) done();
}

const t0 = performance.now() + 100;
let next = 0;
function tick() {
  const now = performance.now() - t0;
  while (next < plan.events.length && plan.events[next][0] <= now) {
    const [atMs, region, key] = plan.events[next++];
    const id = `${key}/${region}`;
    const seq = seqs.get(id) ?? 0;
    seqs.set(id, seq + 1);
    // Which target's request is written first alternates, so neither always goes first.
    const order = next % plan.bareEvery !== 0 ? [0] : Math.floor(next / plan.bareEvery) % 2 === 0 ? [0, 1] : [1, 0];
    for (const target of order) send(target, (target === 0 ? plan.floodgate : plan.bare)[region], region, key, seq, atMs, t0);
    scheduled += 1;
  }
  if (next < plan.events.length) setTimeout(tick, Math.max(0, plan.events[next][0] - (performance.now() - t0) - 1));
  else if (pending === 0) done();
}
setTimeout(tick, 100);
await finished;
for (const agent of agents.values()) agent.destroy();
writeFileSync(outFile, JSON.stringify({ seconds: (performance.now() - t0) / 1000, records }));
console.log(`GEO_DONE ${records.length}`);
