/**
 * Sample rows for the advisor's tests, written in the sample's format
 * (docs/advisor.md, "Sample"): client-chosen values digested with the
 * sample's own `digestValue` under ROWS_KEY.
 */
import { digestValue } from "../../src/advisor/digest.ts";
import { SAMPLE_ROW_VERSION, type SampleDescriptor, type SampleRow } from "../../src/advisor/sample-row.ts";

/** The shard key the rows' digests are keyed with, as a deployment's would be: replay them with it. */
export const ROWS_KEY = { k0: 0x726f7773, k1: 0x2d6b6579 };

/** One request of `key` (an `api_key` header value) on `path` at `t`. */
export interface Arrival {
  readonly t: number;
  readonly key: string;
  readonly cost?: number;
  readonly path?: string;
  /** Its live decision (default true). */
  readonly allowed?: boolean;
  readonly sampled?: boolean;
}

/**
 * Rows of domain `api`, one `[api_key]` descriptor each, the key digested.
 *
 * @example
 * await keyRows([{ t: 0, key: "cust-1" }]);
 */
export async function keyRows(arrivals: readonly Arrival[], domain = "api"): Promise<SampleRow[]> {
  const rows: SampleRow[] = [];
  for (const a of arrivals) {
    const descriptor: SampleDescriptor = {
      entries: [{ key: "api_key", value: await digestValue(a.key, ROWS_KEY) }],
      sampled: a.sampled ?? true,
      limit: null,
      allowed: a.allowed ?? true,
    };
    rows.push(row(domain, a.t, a.cost ?? 1, [descriptor], a.path));
  }
  return rows;
}

/** A row in the sample's format. */
export function row(domain: string, t: number, cost: number, descriptors: readonly SampleDescriptor[], path = "/v1/items"): SampleRow {
  const refused = descriptors.some((d) => !d.allowed);
  return { v: SAMPLE_ROW_VERSION, t, domain, route: `GET ${path}`, cost, decision: refused ? "refused" : "allowed", descriptors };
}

/** A domain `api` whose `api_key` key-only node has one limit. */
export function keyRules(limit: Record<string, unknown>, domain = "api"): unknown {
  return { domain, descriptors: [{ key: "api_key", rate_limit: { name: "per-key", ...limit } }] };
}
