/**
 * The real counters namespace, with every object call the edge makes
 * (`decideText`) passed through a wrapper the test chooses: the one factory
 * behind the fault wrappers of test/support/flaky-counters.ts (calls that
 * fail) and test/support/late-counters.ts (calls late, held or lost).
 */
import type { Env } from "../../src/config.ts";
import { testEnv } from "./app.ts";

/** The one method of a counter stub the edge calls: a batch as JSON text, the rules' version. */
export type DecideText = (text: string, version: number) => Promise<string>;

/**
 * A COUNTERS namespace whose stubs answer through `wrap(decide, name)`,
 * where `decide` is the real object's own `decideText`.
 *
 * @example
 * const counters = wrappedCounters((decide) => async (text, version) => {
 *   texts.push(text);
 *   return decide(text, version);
 * });
 */
export function wrappedCounters(wrap: (decide: DecideText, name: string) => DecideText): Env["COUNTERS"] {
  const counters = {
    getByName: (name: string, options?: unknown) => {
      const stub = (testEnv.COUNTERS.getByName as (n: string, o?: unknown) => { decideText: DecideText })(name, options);
      return { decideText: wrap((text, version) => stub.decideText(text, version), name) };
    },
    // The shard key's default is derived from the namespace's ids.
    idFromName: (name: string) => testEnv.COUNTERS.idFromName(name),
  };
  return counters as unknown as Env["COUNTERS"];
}

/**
 * Whether call `index` (from 0) is among a `share` of calls spread evenly:
 * it is when (index + 1) × share crosses an integer, so the first call is
 * picked only at share 1, and runs are repeatable.
 *
 * @example
 * [0, 1, 2, 3].map((i) => pickedEvenly(i, 0.5)); // [false, true, false, true]
 */
export function pickedEvenly(index: number, share: number): boolean {
  return Math.floor((index + 1) * share) > Math.floor(index * share);
}
