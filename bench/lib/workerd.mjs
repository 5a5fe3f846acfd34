/**
 * One workerd process hosting every bench worker, each on its own port of
 * 127.0.0.1, with Durable Object storage on local disk. The config mirrors
 * what wrangler would give each worker (vars, Durable Object bindings,
 * SQLite-backed classes from the migrations, compatibility date), minus the
 * `wrangler dev` proxy, whose overhead would dominate every figure.
 */
import { spawn } from "node:child_process";
import { createWriteStream, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { join, relative } from "node:path";
import { runtimeWarnings } from "./warnings.mjs";

const require = createRequire(import.meta.url);

/**
 * The workerd binary: the one wrangler bundles (what `wrangler dev` runs),
 * else the project's own.
 *
 * @example
 * workerdBinary(); // "/…/node_modules/wrangler/node_modules/workerd/bin/workerd"
 */
export function workerdBinary() {
  try {
    const fromWrangler = createRequire(require.resolve("wrangler/package.json"));
    return fromWrangler("workerd").default ?? fromWrangler("workerd");
  } catch {
    return require("workerd").default ?? require("workerd");
  }
}

/**
 * The version of that binary's npm package, for the report.
 *
 * @example
 * workerdVersion(); // "1.20261117.1"
 */
export function workerdVersion() {
  try {
    return createRequire(require.resolve("wrangler/package.json"))("workerd/package.json").version;
  } catch {
    return require("workerd/package.json").version;
  }
}

/**
 * `count` distinct free TCP ports on 127.0.0.1. Each is held open until all
 * are found: asked for one at a time and released at once, ports may come
 * back twice, the likelier the more services a config has (64 in the
 * overshoot's), and workerd would then fail to listen.
 *
 * @example
 * const [a, b] = await freePorts(2); // [40123, 40127]
 */
export async function freePorts(count) {
  const servers = [];
  try {
    for (let i = 0; i < count; i++) {
      const server = createServer();
      await new Promise((resolve, reject) => {
        server.on("error", reject);
        server.listen(0, "127.0.0.1", resolve);
      });
      servers.push(server);
    }
    return servers.map((server) => server.address().port);
  } finally {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  }
}

/**
 * A Cap'n Proto text literal.
 *
 * @example
 * capnpText("a\"b"); // "\"a\\\"b\""
 */
export const capnpText = (value) => JSON.stringify(String(value));
const text = capnpText;

// Cap'n Proto constant names must be camelCase: "rpc-floor" → "rpcFloorWorker".
const constName = (id) => `${id.replace(/[^A-Za-z0-9]+(.)/g, (_, c) => c.toUpperCase())}Worker`;

/**
 * Cap'n Proto text for one worker service. `vars` are added to (and win
 * over) the worker's wrangler vars; `uniqueKey` keeps every worker's objects
 * apart on disk. With `objectsFrom` (another service's id), the service
 * declares no objects of its own and binds that service's namespaces
 * (workerd.capnp, DurableObjectNamespaceDesignator's `serviceName`): its
 * own isolate, the other's objects, as colos share objects.
 */
function workerConfig(id, worker, configDir, vars, objectsFrom) {
  const modules = worker.modules.map((m) => `(name = ${text(m)}, esModule = embed ${text(relative(configDir, join(worker.dir, m)))})`);
  const allVars = { ...worker.vars, ...vars };
  const bindings = [
    ...Object.entries(allVars).map(([name, value]) => `(name = ${text(name)}, text = ${text(value)})`),
    ...worker.durableObjects.map(
      (d) =>
        `(name = ${text(d.binding)}, durableObjectNamespace = (className = ${text(d.className)}${objectsFrom ? `, serviceName = ${text(objectsFrom)}` : ""}))`,
    ),
  ];
  const classes = objectsFrom ? [] : [...new Set(worker.durableObjects.map((d) => d.className))];
  const namespaces = classes.map((c) => `(className = ${text(c)}, uniqueKey = ${text(`${id}-${c}`)}, enableSql = ${worker.sqliteClasses.has(c)})`);
  return [
    `const ${constName(id)} :Workerd.Worker = (`,
    `  modules = [${modules.join(", ")}],`,
    `  compatibilityDate = ${text(worker.compatibilityDate)},`,
    `  compatibilityFlags = [${worker.compatibilityFlags.map(text).join(", ")}],`,
    `  bindings = [${bindings.join(", ")}],`,
    ...(classes.length > 0 ? [`  durableObjectNamespaces = [${namespaces.join(", ")}],`, `  durableObjectStorage = (localDisk = "do-disk"),`] : []),
    // Nothing in the bench calls out; keep any stray fetch on this machine.
    `  globalOutbound = "loopback-only",`,
    `);`,
  ].join("\n");
}

/**
 * Write the config for `services` (id → { worker, vars, objectsFrom? }) and
 * return the port each listens on. `vars` may be a function of the ports (so
 * a worker can be told where another one listens, e.g. the bench origin).
 * With `ports` (taken beforehand, covering these services and any others
 * their vars name, as when each workerd of a set serves one service), those
 * are used; `file` names the config in `dir` (one per workerd of a set).
 * With `cfBlobHeader`, every socket reads `request.cf` from that request
 * header (workerd.capnp, HttpOptions), so a request can arrive as from a
 * Cloudflare location.
 *
 * @example
 * const { path, ports } = await writeConfig(dir, { bare: { worker: built.bare, vars: {} } }, storageDir);
 */
export async function writeConfig(dir, services, storageDir, { ports: given, file = "bench.capnp", cfBlobHeader } = {}) {
  mkdirSync(dir, { recursive: true });
  mkdirSync(storageDir, { recursive: true });
  const ids = Object.keys(services);
  const ports = given ?? Object.fromEntries((await freePorts(ids.length)).map((port, i) => [ids[i], port]));
  const lines = [
    `using Workerd = import "/workerd/workerd.capnp";`,
    `const config :Workerd.Config = (`,
    `  services = [`,
    ...Object.keys(services).map((id) => `    (name = ${text(id)}, worker = .${constName(id)}),`),
    `    (name = "do-disk", disk = (path = ${text(storageDir)}, writable = true)),`,
    `    (name = "loopback-only", network = (allow = ["local"])),`,
    `  ],`,
    `  sockets = [`,
    ...Object.keys(services).map(
      (id) =>
        `    (name = ${text(id)}, address = ${text(`127.0.0.1:${ports[id]}`)}, http = (${cfBlobHeader ? `cfBlobHeader = ${text(cfBlobHeader)}` : ""}), service = ${text(id)}),`,
    ),
    `  ],`,
    `);`,
    ...Object.entries(services).map(([id, s]) => workerConfig(id, s.worker, dir, (typeof s.vars === "function" ? s.vars(ports) : s.vars) ?? {}, s.objectsFrom)),
  ];
  const path = join(dir, file);
  writeFileSync(path, `${lines.join("\n")}\n`);
  return { path, ports };
}

/**
 * Start workerd on `configPath` and wait until every port answers. Returns
 * the process and a `stop()` that ends it (by its PID), waits for its log
 * to be written out, and resolves with the runtime warnings in that log
 * (`runtimeWarnings` of warnings.mjs, plus `log`: the file); calling it
 * again gives the same answer.
 *
 * @example
 * const server = await startWorkerd(path, ports, logFile);
 * try { … } finally { const { total } = await server.stop(); }
 * // With { inspectorPort }: workerd's inspector listens there (bench/lib/heap.mjs reads heaps through it).
 */
export async function startWorkerd(configPath, ports, logFile, { inspectorPort = process.env.BENCH_INSPECT, startMs = 30_000 } = {}) {
  const log = createWriteStream(logFile);
  const child = spawn(workerdBinary(), ["serve", configPath, ...(inspectorPort ? [`--inspector-addr=127.0.0.1:${inspectorPort}`] : [])], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  // Two sources into one file: neither may end it, or the other's last lines would be written after its end.
  child.stdout.pipe(log, { end: false });
  child.stderr.pipe(log, { end: false });
  let exited = false;
  child.on("exit", () => (exited = true));
  // "close": the process has exited and both of its pipes are drained into the log.
  const closed = new Promise((resolve) => child.on("close", resolve));
  let stopped;
  const stop = () => {
    stopped ??= (async () => {
      if (!exited) child.kill("SIGTERM");
      const timer = setTimeout(() => {
        if (!exited) child.kill("SIGKILL");
      }, 5_000);
      await closed;
      clearTimeout(timer);
      await new Promise((resolve) => log.end(resolve));
      return { log: logFile, ...runtimeWarnings(readFileSync(logFile, "utf8")) };
    })();
    return stopped;
  };
  const deadline = Date.now() + startMs;
  for (const [id, port] of Object.entries(ports)) {
    for (;;) {
      if (exited) throw new Error(`workerd exited while starting; see ${logFile}`);
      try {
        const response = await fetch(`http://127.0.0.1:${port}/__ratelimit/healthcheck`, { signal: AbortSignal.timeout(1_000) });
        await response.arrayBuffer();
        break;
      } catch {
        if (Date.now() > deadline) {
          await stop();
          throw new Error(`workerd did not answer on ${id} (port ${port}) within ${startMs / 1000} s; see ${logFile}`);
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }
  return { pid: child.pid, stop };
}
