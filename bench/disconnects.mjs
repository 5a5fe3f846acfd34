/**
 * Runtime warnings under load that starts, stops and hangs up: one workerd
 * with floodgate (and the bench origin), loaded as `npm run bench` loads it
 * (wrk, 50 connections, keys as bench/lib/load.lua sends them, cut off with
 * requests in flight at the end of each load), then the warning lines in
 * workerd's log are counted (bench/lib/warnings.mjs). Exits 1 if there are any.
 *
 *   node bench/disconnects.mjs                 # wrk: pre-counted and strong paths in turn, 1,000 recurring keys
 *   node bench/disconnects.mjs --hot           # wrk: one hot key (the coalesced path)
 *   node bench/disconnects.mjs --sockets       # raw sockets instead, a share of them destroyed mid-request
 *
 * Options: --seconds per load (default 2), --connections (50), --paths
 * (comma-separated, each loaded in turn), --no-build (reuse the last build);
 * with --sockets also --drop (share of requests abandoned, 0.2) and --keys (4).
 */
import { connect } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { builtWorkers } from "./lib/build.mjs";
import { keyArgs } from "./lib/keys.mjs";
import { runLoad } from "./lib/load.mjs";
import { warningCounts, warningLines } from "./lib/warnings.mjs";
import { startWorkerd, writeConfig } from "./lib/workerd.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));

/** Pre-counting (mostly strong decisions on 1,000 keys, refresh chains on the hot ones) and strong mode, each loaded twice in turn. */
const PATHS = [
  "/sharded/precount",
  "/sharded/precount-strong",
  "/sharded/precount",
  "/sharded/precount-strong",
  "/sharded/precount",
  "/sharded/precount-strong",
];

/**
 * Keep `connections` raw keep-alive sockets busy for `seconds` with GETs on
 * `paths` (in turn) and keys among `keys`; a request is abandoned (its
 * socket destroyed before the answer) with probability `drop`. At the end
 * every socket is destroyed at once, requests in flight or not.
 *
 * @example
 * await drive({ port: 8787, paths: ["/sharded/precount"], keys: 4, connections: 8, seconds: 1, drop: 0.2 });
 * // { sent: 1234, answered: 1000, dropped: 234 }
 */
export async function drive({ port, paths, keys, connections, seconds, drop, random = Math.random }) {
  const counts = { sent: 0, answered: 0, dropped: 0 };
  const sockets = new Set();
  const until = Date.now() + seconds * 1_000;
  let n = 0;
  const loop = async () => {
    while (Date.now() < until) {
      const socket = connect(port, "127.0.0.1");
      socket.setNoDelay(true);
      sockets.add(socket);
      socket.on("error", () => {});
      await new Promise((resolve) => socket.once("connect", resolve).once("close", resolve));
      let buffered = "";
      let answered;
      socket.on("data", (chunk) => {
        buffered += chunk;
        // Small bodies with a Content-Length: a response is in once its headers and that many bytes are.
        const end = buffered.indexOf("\r\n\r\n");
        if (end < 0) return;
        const length = Number(/content-length: *(\d+)/i.exec(buffered.slice(0, end))?.[1] ?? 0);
        if (buffered.length < end + 4 + length) return;
        buffered = buffered.slice(end + 4 + length);
        answered?.();
      });
      socket.once("close", () => answered?.());
      while (Date.now() < until && !socket.destroyed) {
        const key = `k-${1 + Math.floor(random() * keys)}`;
        socket.write(`GET ${paths[n++ % paths.length]} HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: ${key}\r\n\r\n`);
        counts.sent += 1;
        if (random() < drop) {
          // Long enough for the request to reach the worker and wait on an object, then hang up.
          await new Promise((resolve) => setTimeout(resolve, random() * 3));
          socket.destroy();
          counts.dropped += 1;
          break;
        }
        await new Promise((resolve) => (answered = resolve));
        if (!socket.destroyed) counts.answered += 1;
      }
      sockets.delete(socket);
      socket.destroy();
    }
  };
  const loops = Array.from({ length: connections }, loop);
  await new Promise((resolve) => setTimeout(resolve, seconds * 1_000));
  for (const socket of sockets) socket.destroy();
  await Promise.all(loops);
  return counts;
}

async function main() {
  const { values } = parseArgs({
    options: {
      seconds: { type: "string", default: "2" },
      connections: { type: "string", default: "50" },
      paths: { type: "string" },
      hot: { type: "boolean", default: false },
      sockets: { type: "boolean", default: false },
      drop: { type: "string", default: "0.2" },
      keys: { type: "string", default: "4" },
      "no-build": { type: "boolean", default: false },
    },
  });
  const paths = values.paths?.split(",") ?? (values.hot ? ["/sharded/hot-key-open", "/sharded/hot-key-open"] : PATHS);
  const work = join(root, "bench", ".work", "disconnects");
  const built = await builtWorkers(root, work, ["floodgate", "origin"], values["no-build"]);
  const { path, ports } = await writeConfig(
    join(work, "build"),
    { origin: { worker: built.origin }, floodgate: { worker: built.floodgate, vars: (p) => ({ ORIGIN_URL: `http://127.0.0.1:${p.origin}` }) } },
    join(work, `storage-${Date.now()}`),
  );
  const server = await startWorkerd(path, ports, join(work, "workerd.log"));
  let warnings;
  try {
    const seconds = Number(values.seconds);
    const connections = Number(values.connections);
    if (values.sockets) {
      const counts = await drive({ port: ports.floodgate, paths, keys: Number(values.keys), connections, seconds, drop: Number(values.drop) });
      console.log(`sockets: sent ${counts.sent}, answered ${counts.answered}, abandoned ${counts.dropped} mid-request`);
    } else {
      const keys = values.hot ? { kind: "hot" } : { kind: "recurring", keys: 1_000 };
      for (const [i, p] of paths.entries()) {
        const url = `http://127.0.0.1:${ports.floodgate}${p}`;
        const r = await runLoad({ client: "wrk", url, connections, seconds, keyArgs: keyArgs(keys, `d${Date.now()}-${i}`) });
        console.log(`wrk ${p}: ${r.requests} requests (${r.ok} allowed, ${r.limited} limited, ${r.failOpen} failed open, ${r.other} other)`);
      }
    }
    // What the cut-off requests left behind (batches, syncs, timers) runs out before workerd stops.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
  } finally {
    warnings = await server.stop();
  }
  console.log(`runtime warnings: ${warningCounts(warnings)} (${warnings.log})`);
  if (warnings.total > 0) console.log(warningLines(warnings).join("\n"));
  process.exitCode = warnings.total > 0 ? 1 : 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
