/**
 * Where `POST /__ratelimit/replay` reads the traffic sample from
 * (docs/advisor.md, "What-if panel"): one small interface, apart from the
 * store that keeps the sample, so the endpoint works with whichever store
 * the Worker is given.
 */
import type { SampleRow } from "./sample-row.ts";

/**
 * A domain's sampled rows.
 *
 * @example
 * const rows = await source.rows("api"); // clock order, the format of docs/advisor.md ("Sample")
 */
export interface SampleSource {
  /** The domain's sampled rows in clock order (rows sorted by `t`; ties in the counter's order). */
  rows(domain: string): Promise<readonly SampleRow[]>;
}

/**
 * A source holding fixed rows (tests, and a Worker with no sample store).
 *
 * @example
 * const source = fixedSample([]); await source.rows("api"); // []
 */
export function fixedSample(rows: readonly SampleRow[]): SampleSource {
  return { rows: async (domain) => rows.filter((row) => row.domain === domain) };
}
