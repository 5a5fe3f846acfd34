/**
 * The platform suite's workerd config (docs/testing.md, "test:platform"):
 * one workerd, several services of the one build, each its own isolate.
 * `home` declares the Durable Object namespaces; every other service binds
 * the same ones (workerd.capnp, DurableObjectNamespaceDesignator's
 * `serviceName`), so all of them count against the same objects, as
 * isolates in different colos do. A service's vars are added to (and win
 * over) wrangler.toml's. Every socket reads `request.cf` from the `cf-blob`
 * header (HttpOptions' `cfBlobHeader`), so a request can arrive as from a
 * Cloudflare location. Written by the bench's one config writer
 * (bench/lib/workerd.mjs).
 */
import { writeConfig } from "../../../bench/lib/workerd.mjs";

/** The header workerd parses `request.cf` from. */
export const CF_HEADER = "cf-blob";

/**
 * Write the config of `services` (id → its vars; `home` first) into `dir`;
 * return its path and each service's port. `builds` (id → { worker,
 * objectsFrom }) runs a service from another build (the deploy before,
 * lib/previous.mjs) or on another service's objects (`objectsFrom: null`:
 * it declares its own).
 *
 * @example
 * const { path, ports } = await writePlatformConfig(dir, built.platform, { home: {}, "faults-30": { PLATFORM_FAULTS: "0.3:overloaded+retryable" } }, storageDir);
 */
export async function writePlatformConfig(dir, worker, services, storageDir, builds = {}) {
  const ids = Object.keys(services);
  if (ids[0] !== "home") throw new Error("the first service must be home (it declares the objects)");
  const configured = Object.fromEntries(
    ids.map((id) => {
      const { worker: built = worker, objectsFrom = id === "home" ? null : "home" } = builds[id] ?? {};
      return [id, { worker: built, vars: services[id], ...(objectsFrom === null ? {} : { objectsFrom }) }];
    }),
  );
  return writeConfig(dir, configured, storageDir, { file: "platform.capnp", cfBlobHeader: CF_HEADER });
}
