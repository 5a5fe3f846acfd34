/**
 * One workerd per side (bench/README.md, "CPU per request"): floodgate,
 * the bare worker forwarding, the bare worker answering 429s, the peer and
 * each probe or variant each run in a workerd process of their own, and the
 * origin they all forward to in another. A process's CPU is then its
 * side's alone: not the origin's, not another target's deferred work (the
 * peer's alarms, floodgate's checkpoints), not the load generator's.
 */
import { join } from "node:path";
import { processCpuTicks } from "./cpu.mjs";
import { freePorts, startWorkerd, writeConfig } from "./workerd.mjs";

/** The request header floodgate's workerd reads `request.cf` from (bench/lib/load.lua sets it per request). */
export const CF_BLOB_HEADER = "cf-blob";

/**
 * The workerd that serves `target`: one of its own (named by its id), the
 * origin's when the origin itself is loaded, and in the mixed pass the one
 * long-lived floodgate process for every target floodgate serves.
 *
 * @example
 * processOf({ id: "bare-429", service: "bare", path: "/429/sharded/blocked" }); // "bare-429"
 * processOf({ id: "floodgate-strong", service: "floodgate", path: "/sharded/precount-strong" }, { mixed: true }); // "floodgate"
 */
export function processOf(target, { mixed = false } = {}) {
  if (target.service === "origin") return "origin";
  if (mixed && target.service.startsWith("floodgate")) return "floodgate";
  return target.id;
}

/**
 * Start the origin and one workerd per process that `targets` need, each
 * serving one service (`services[target.service]`, named after its process)
 * on its own port, with storage of its own under `storageDir`. Resolves once
 * every one answers. `inspectorPort`, if set, goes to the floodgate
 * process only (the `--profile` run).
 *
 * @example
 * const sides = await startSides({ services, targets, dir, storageDir, logOf: (id) => `workerd-${id}.log` });
 * sides.portOf(target); sides.pidOf(target); sides.pids; // every process, the origin's included
 * sides.cpuSinceStart(); // { floodgate: 1523, bare: 410, … } (clock ticks since they answered)
 * for (const { id, warnings } of await sides.stop()) …
 */
export async function startSides({ services, targets, mixed = false, dir, storageDir, logOf, inspectorPort = null }) {
  const hosted = new Map([["origin", "origin"]]);
  for (const target of targets) hosted.set(processOf(target, { mixed }), target.service);
  const ids = [...hosted.keys()];
  const free = await freePorts(ids.length);
  const ports = Object.fromEntries(ids.map((id, i) => [id, free[i]]));
  const settled = await Promise.allSettled(
    ids.map(async (id) => {
      // floodgate's processes read request.cf from the load's `cf-blob` header (production's shape: bench/README.md, "Method").
      const cf = hosted.get(id).startsWith("floodgate") ? { cfBlobHeader: CF_BLOB_HEADER } : {};
      const { path } = await writeConfig(dir, { [id]: services[hosted.get(id)] }, join(storageDir, id), { ports, file: `${id}.capnp`, ...cf });
      return [id, await startWorkerd(path, { [id]: ports[id] }, logOf(id), { inspectorPort: id === "floodgate" ? inspectorPort : null })];
    }),
  );
  const started = new Map(settled.filter((s) => s.status === "fulfilled").map((s) => s.value));
  const stop = async () => Promise.all([...started].map(async ([id, server]) => ({ id, warnings: await server.stop() })));
  const failed = settled.find((s) => s.status === "rejected");
  if (failed) {
    await stop();
    throw failed.reason;
  }
  const pidOf = (target) => started.get(processOf(target, { mixed })).pid;
  const startTicks = Object.fromEntries([...started].map(([id, server]) => [id, processCpuTicks(server.pid)]));
  return {
    ports,
    pids: [...started.values()].map((s) => s.pid),
    portOf: (target) => ports[processOf(target, { mixed })],
    pidOf,
    processOf: (target) => processOf(target, { mixed }),
    cpuSinceStart: () => Object.fromEntries([...started].map(([id, server]) => [id, processCpuTicks(server.pid) - startTicks[id]])),
    stop,
  };
}
