/**
 * The test runtime's real COUNTERS namespace, seen through a wrapper that
 * records every object the code under test addresses and the location hint
 * it asked for (docs/placement.md).
 */
import type { Env } from "../../src/config.ts";
import { testEnv } from "./app.ts";

/**
 * @example
 * const { addressed, counters } = recordingCounters();
 * const call = gateway(rules, { COUNTERS: counters });
 * await call("/x");
 * addressed; // [{ name: "global/shard/12@weur", hint: "weur" }, …]
 */
export function recordingCounters() {
  const addressed: { name: string; hint?: string }[] = [];
  const real = testEnv.COUNTERS;
  const counters = {
    getByName(name: string, options?: DurableObjectNamespaceGetDurableObjectOptions) {
      addressed.push({ name, hint: options?.locationHint });
      return real.getByName(name, options);
    },
    // The shard key's default is derived from the namespace's ids.
    idFromName: (name: string) => real.idFromName(name),
  } as unknown as Env["COUNTERS"];
  return { addressed, counters, real };
}
