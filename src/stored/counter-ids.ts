/**
 * STORED FORMAT (docs/stored-formats.md): the ids that name a counter's
 * state. A counter object stores each window under `key` U+0001 `limit id`;
 * regional leases and pre-counting isolates name a counter by the same
 * parts. Change one and every counter of a deploy starts from zero (and
 * old and new isolates, both live during the deploy, count apart): these
 * change only as docs/stored-formats.md says.
 */
import type { AlgorithmName } from "../algorithms/types.ts";

/** Version of the ids below: raised with any change of what they produce. */
export const COUNTER_IDS_VERSION = 1;

/** Algorithm codes in limit ids. */
const ALGORITHM_CODES: Readonly<Record<AlgorithmName, string>> = {
  token_bucket: "tb",
  leaky_bucket: "lb",
  fixed_window: "fw",
  sliding_window_log: "swl",
  sliding_window_counter: "swc",
  gcra: "gcra",
};

/**
 * Stable id of a limit's counting parameters: renaming a rule or moving it in
 * the file keeps its counters.
 *
 * @example
 * limitId("token_bucket", 1, 1000, 5); // "tb:1:1000:5"
 */
export function limitId(algorithm: AlgorithmName, limit: number, windowMs: number, burst: number): string {
  return `${ALGORITHM_CODES[algorithm]}:${limit}:${windowMs}:${burst}`;
}

/** Appended to the id of a limit with `count_when`: it keeps its own counter beside an otherwise equal one. */
export const COUNT_WHEN_SUFFIX = ":cw";

/** Appended to the id of a `candidate` limit: it counts beside its live limit on the same key, never in the live counter. */
export const CANDIDATE_SUFFIX = ":cand";

/**
 * The limit id of every concurrency limit: the slots of a key stay the same
 * table when the rule's N changes, so requests in flight keep counting.
 */
export const CONCURRENCY_ID = "concurrency";

/** The descriptor key every identifier of the drop-ins (Upstash, hono-rate-limiter, the binding) is counted under. */
export const IDENTIFIER_KEY = "identifier";

/**
 * Separates counter key from limit id in storage ids; counter keys are JSON
 * text, in which a raw U+0001 cannot occur, so the split is unambiguous.
 */
export const STORAGE_ID_SEPARATOR = "\u0001";

/**
 * The counter key of a descriptor in a domain. JSON encoding keeps it
 * unambiguous whatever the values contain (`,` `=` `:` `/` or NUL), so two
 * different descriptors never share a counter.
 *
 * @example
 * counterKey("api", [{ key: "remote_address", value: "203.0.113.7" }]);
 * // '["api",["remote_address","203.0.113.7"]]'
 */
export function counterKey(domain: string, entries: readonly { readonly key: string; readonly value: string }[]): string {
  const parts: string[] = [domain];
  for (const entry of entries) parts.push(entry.key, entry.value);
  return JSON.stringify([parts[0], parts.slice(1)]);
}

/**
 * Where one window of a counter is stored in its object.
 *
 * @example
 * storageId('["api",["user","u1"]]', "fw:10:60000:10"); // '["api",["user","u1"]]\u0001fw:10:60000:10'
 */
export function storageId(key: string, limitId: string): string {
  return key + STORAGE_ID_SEPARATOR + limitId;
}
