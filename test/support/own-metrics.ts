/**
 * Metrics shards of a test file's own (docs/testing.md, "Tiers"): the files of a workerd worker share its
 * objects, and the dashboard's failure ring is one per shard for every domain, kept by bucket slot (a slot
 * holding a later bucket drops an earlier one, src/metrics/ring.ts). Another file's isolate on a later driven
 * clock can so hide this file's failure counts in a shared shard; shards named for this file see only its sends.
 */
import type { Env } from "../../src/config.ts";
import { testEnv } from "./app.ts";

/**
 * The METRICS namespace with every shard name prefixed by `prefix`: pass it as the `METRICS` binding of every
 * gateway of the file (the senders and the readers), so the sends and the reads meet in the same shards.
 *
 * @example
 * const metrics = ownMetrics(`dashboard-${Date.now()}/`);
 * const api = envoyApi(rules, { METRICS: metrics });
 */
export function ownMetrics(prefix: string): Env["METRICS"] {
  const real = testEnv.METRICS;
  return new Proxy(real, {
    get(target, prop) {
      if (prop === "getByName") return (name: string, options?: DurableObjectNamespaceGetDurableObjectOptions) => target.getByName(`${prefix}${name}`, options);
      if (prop === "idFromName") return (name: string) => target.idFromName(`${prefix}${name}`);
      const value = Reflect.get(target, prop);
      return typeof value === "function" ? (...args: unknown[]) => Reflect.apply(value, target, args) : value;
    },
  });
}
