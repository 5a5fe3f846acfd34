/**
 * The platform suite's workerd config (docs/testing.md, "test:platform"):
 * one workerd, several services of the one build, each its own isolate.
 * `home` declares the Durable Object namespaces; every other service binds
 * the same ones (workerd.capnp, DurableObjectNamespaceDesignator's
 * `serviceName`), so all of them count against the same objects, as
 * isolates in different colos do. A service's vars are added to (and win
 * over) wrangler.toml's. Every socket reads `request.cf` from the `cf-blob`
 * header (HttpOptions' `cfBlobHeader`), so a request can arrive as from a
 * Cloudflare location.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { capnpText as text, freePorts } from "../../../bench/lib/workerd.mjs";

/** The header workerd parses `request.cf` from. */
export const CF_HEADER = "cf-blob";

const constName = (id) => `${id.replace(/[^A-Za-z0-9]+(.)/g, (_, c) => c.toUpperCase())}Worker`;

function serviceConfig(id, worker, configDir, serviceVars) {
  const modules = worker.modules.map((m) => `(name = ${text(m)}, esModule = embed ${text(relative(configDir, join(worker.dir, m)))})`);
  const home = id === "home" ? "" : `, serviceName = "home"`;
  const vars = { ...worker.vars, ...serviceVars };
  const bindings = [
    ...Object.entries(vars).map(([name, value]) => `(name = ${text(name)}, text = ${text(value)})`),
    ...worker.durableObjects.map((d) => `(name = ${text(d.binding)}, durableObjectNamespace = (className = ${text(d.className)}${home}))`),
  ];
  const classes = [...new Set(worker.durableObjects.map((d) => d.className))];
  const namespaces = classes.map((c) => `(className = ${text(c)}, uniqueKey = ${text(`platform-${c}`)}, enableSql = ${worker.sqliteClasses.has(c)})`);
  return [
    `const ${constName(id)} :Workerd.Worker = (`,
    `  modules = [${modules.join(", ")}],`,
    `  compatibilityDate = ${text(worker.compatibilityDate)},`,
    `  compatibilityFlags = [${worker.compatibilityFlags.map(text).join(", ")}],`,
    `  bindings = [${bindings.join(", ")}],`,
    ...(id === "home" ? [`  durableObjectNamespaces = [${namespaces.join(", ")}],`, `  durableObjectStorage = (localDisk = "do-disk"),`] : []),
    // Nothing calls out (no ORIGIN_URL: allowed requests get the echo); keep any stray fetch on this machine.
    `  globalOutbound = "loopback-only",`,
    `);`,
  ].join("\n");
}

/**
 * Write the config of `services` (id → its vars; `home` first) into `dir`;
 * return its path and each service's port.
 *
 * @example
 * const { path, ports } = await writePlatformConfig(dir, built.platform, { home: {}, "faults-30": { PLATFORM_FAULTS: "0.3:overloaded+retryable" } }, storageDir);
 */
export async function writePlatformConfig(dir, worker, services, storageDir) {
  mkdirSync(dir, { recursive: true });
  mkdirSync(storageDir, { recursive: true });
  const ids = Object.keys(services);
  if (ids[0] !== "home") throw new Error("the first service must be home (it declares the objects)");
  const free = await freePorts(ids.length);
  const ports = Object.fromEntries(ids.map((id, i) => [id, free[i]]));
  const lines = [
    `using Workerd = import "/workerd/workerd.capnp";`,
    `const config :Workerd.Config = (`,
    `  services = [`,
    ...ids.map((id) => `    (name = ${text(id)}, worker = .${constName(id)}),`),
    `    (name = "do-disk", disk = (path = ${text(storageDir)}, writable = true)),`,
    `    (name = "loopback-only", network = (allow = ["local"])),`,
    `  ],`,
    `  sockets = [`,
    ...ids.map(
      (id) => `    (name = ${text(id)}, address = ${text(`127.0.0.1:${ports[id]}`)}, http = (cfBlobHeader = ${text(CF_HEADER)}), service = ${text(id)}),`,
    ),
    `  ],`,
    `);`,
    ...ids.map((id) => serviceConfig(id, worker, dir, services[id])),
  ];
  const path = join(dir, "platform.capnp");
  writeFileSync(path, `${lines.join("\n")}\n`);
  return { path, ports };
}
