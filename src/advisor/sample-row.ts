/**
 * The traffic sample's row (docs/advisor.md, "Sample"): one decided request
 * of one domain, as `GET /__ratelimit/sample` exports it, one JSON object a
 * line. Its shape is a contract with the replay (`npm run rules:replay`).
 */

/** Version of the row below (`v`). */
export const SAMPLE_ROW_VERSION = 1;

/** The request's overall decision as the gateway tagged it. */
export type SampleDecision = "allowed" | "refused" | "shadow" | "local" | "not-enforced" | "soft";

/** One entry of a sampled descriptor: client-controlled values digested (digest.ts). */
export interface SampleEntry {
  readonly key: string;
  readonly value: string;
}

/** One descriptor of a sampled request, in rule order. */
export interface SampleDescriptor {
  readonly entries: readonly SampleEntry[];
  /** This descriptor's key is in the sampled set: every request of it is in the sample. */
  readonly sampled: boolean;
  /** The limit that decided it (null: no limit matched, or unlimited). */
  readonly limit: string | null;
  /** That limit's live decision (true when no limit). */
  readonly allowed: boolean;
}

/**
 * One sampled request.
 *
 * @example
 * const row: SampleRow = { v: 1, t: 1764262800123, domain: "api", route: "GET /v1/items", cost: 1, decision: "allowed", descriptors: [] };
 */
export interface SampleRow {
  readonly v: typeof SAMPLE_ROW_VERSION;
  /** The decision's clock, epoch ms (the isolate's). */
  readonly t: number;
  readonly domain: string;
  /** Method, a space, and the path the rules matched. */
  readonly route: string;
  /** Hits the request was charged. */
  readonly cost: number;
  readonly decision: SampleDecision;
  readonly descriptors: readonly SampleDescriptor[];
}

/** Rows sent with one metrics send, with the settings the metrics shard keeps them by. */
export interface SampleSend {
  readonly rows: readonly SampleRow[];
  readonly maxRows: number;
  readonly retentionMs: number;
  /** The isolate's clock when sent (rows' `t` are on it too): retention is judged on it. */
  readonly sentAt: number;
}
