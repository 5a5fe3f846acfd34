/**
 * A V8 CPU profile of one bench worker's isolate (its Durable Objects run in
 * the same isolate) while a load runs: `npm run bench -- --profile
 * <scenario>` starts workerd with its inspector on 127.0.0.1, records the
 * floodgate isolate during one load of that scenario, writes
 * `bench/.work/profile-<scenario>.cpuprofile` (open it in Chrome DevTools) and
 * prints where the JavaScript time went. Time spent in workerd's C++ (RPC
 * transport, SQLite, HTTP) shows as "(program)" or outside the profile.
 */
// @ts-nocheck


import { SourceMap } from "node:module";

/**
 * Talk to one inspector target over the Chrome DevTools protocol.
 *
 * @example
 * const session = await inspect("ws://127.0.0.1:9229/floodgate");
 * await session.send("Profiler.enable");
 */
export async function inspect(url) {
  const socket = new WebSocket(url);
  await new Promise((resolve, reject) => {
    socket.addEventListener("open", resolve, { once: true });
    socket.addEventListener("error", () => reject(new Error(`cannot reach inspector at ${url}`)), { once: true });
  });
  let nextId = 1;
  const pending = new Map();
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(event.data);
    const waiter = pending.get(message.id);
    if (!waiter) return;
    pending.delete(message.id);
    if (message.error) waiter.reject(new Error(message.error.message));
    else waiter.resolve(message.result);
  });
  return {
    send(method, params = {}) {
      const id = nextId++;
      socket.send(JSON.stringify({ id, method, params }));
      return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
    },
    close() {
      socket.close();
    },
  };
}

/**
 * Self time per function of a V8 CPU profile, largest first, as shares of
 * all samples.
 *
 * @example
 * summarizeProfile(profile, 20); // [{ name: "decideOne", where: "floodgate-entry.js:1234", share: 0.031 }, …]
 */
export function summarizeProfile(profile, top) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  for (const id of profile.samples) {
    const frame = byId.get(id).callFrame;
    const file = frame.url.split("/").pop();
    const name = frame.functionName || "(anonymous)";
    const key = `${name}\u0000${file ? `${file}:${frame.lineNumber + 1}` : ""}`;
    self.set(key, (self.get(key) ?? 0) + 1);
  }
  const total = profile.samples.length;
  return [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([key, count]) => {
      const [name, where] = key.split("\u0000");
      return { name, where, share: count / total };
    });
}

/**
 * Self time grouped by original source file, through the bundle's source
 * map: which part of floodgate (or Hono, or the runtime) the samples fell in.
 * Native frames without a script are grouped by their V8 name: "(program)"
 * and "(idle)" are the runtime's own C++ and waiting, "(garbage collector)"
 * is GC, and calls into runtime APIs (the RPC stub, SQLite, Response) count
 * as the API's name.
 *
 * @example
 * summarizeBySource(profile, sourceMapJson, "floodgate-entry.js"); // [{ source: "src/limiter/decide.ts", share: 0.21 }, …]
 */
export function summarizeBySource(profile, sourceMapPayload, bundleName) {
  const map = sourceMapPayload ? new SourceMap(sourceMapPayload) : undefined;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const shares = new Map();
  for (const id of profile.samples) {
    const frame = byId.get(id).callFrame;
    let source;
    if (!frame.url) source = frame.functionName.startsWith("(") ? frame.functionName : `runtime API: ${frame.functionName || "(anonymous)"}`;
    // workerd's own JavaScript (node-internal:…, cloudflare-internal:…) is not in the bundle's map.
    else if (bundleName && !frame.url.endsWith(bundleName)) source = `runtime JS: ${frame.url}`;
    else {
      const entry = map?.findEntry(frame.lineNumber, frame.columnNumber);
      source = entry?.originalSource ? shortSource(entry.originalSource) : frame.url.split("/").pop();
    }
    shares.set(source, (shares.get(source) ?? 0) + 1);
  }
  const total = profile.samples.length;
  return [...shares.entries()].sort((a, b) => b[1] - a[1]).map(([source, count]) => ({ source, share: count / total }));
}

// "../../../../src/limiter/decide.ts" → "src/limiter/decide.ts"; packages by name.
function shortSource(path) {
  const modules = path.lastIndexOf("node_modules/");
  if (modules >= 0)
    return path
      .slice(modules + "node_modules/".length)
      .split("/")
      .slice(0, path.includes("node_modules/@") ? 2 : 1)
      .join("/");
  const src = path.lastIndexOf("src/");
  return src >= 0 ? path.slice(src) : path;
}

/**
 * Profile `target` while `load()` runs; returns the raw profile.
 *
 * @example
 * const profile = await profileDuring(9229, "floodgate", () => runLoad(...));
 */
export async function profileDuring(inspectorPort, target, load) {
  const session = await inspect(`ws://127.0.0.1:${inspectorPort}/${target}`);
  try {
    await session.send("Profiler.enable");
    await session.send("Profiler.setSamplingInterval", { interval: 200 });
    await session.send("Profiler.start");
    const result = await load();
    const { profile } = await session.send("Profiler.stop");
    return { profile, result };
  } finally {
    session.close();
  }
}
