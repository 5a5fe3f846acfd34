/**
 * The traffic sample's row (docs/advisor.md, "Sample"): one decided request
 * of one domain, as `GET /__ratelimit/sample` exports it, one JSON object a
 * line. Its shape is a contract with the replay (`npm run rules:replay`).
 */

/**
 * Version of the row below (`v`). 2: digests are keyed (HMAC-SHA-256 under a
 * key derived from the shard key) and `path` entries keep only the
 * segments the rules name; 1 (read, no longer written): unkeyed SHA-256
 * digests, raw paths in `path` entries (docs/stored-formats.md).
 */
export const SAMPLE_ROW_VERSION = 2;

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
 * const row: SampleRow = { v: 2, t: 1764262800123, domain: "api", route: "GET /v1/items", cost: 1, decision: "allowed", descriptors: [] };
 */
export interface SampleRow {
  readonly v: typeof SAMPLE_ROW_VERSION | 1;
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

/** Rows read, or the first bad line. */
export type ParsedSample = { readonly ok: true; readonly rows: SampleRow[] } | { readonly ok: false; readonly line: number; readonly message: string };

/**
 * Read NDJSON sample text (blank lines skipped), rows put in clock order
 * (stable: ties keep the order they came in).
 *
 * @example
 * const sample = parseSample(await (await fetch(url)).text());
 * if (sample.ok) sample.rows.length;
 */
export function parseSample(text: string): ParsedSample {
  const rows: SampleRow[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return { ok: false, line: i + 1, message: "not a JSON object" };
    }
    const problem = rowProblem(value);
    if (problem !== undefined) return { ok: false, line: i + 1, message: problem };
    rows.push(value as SampleRow);
  }
  return { ok: true, rows: inClockOrder(rows) };
}

/**
 * What is wrong with a row, or undefined.
 *
 * @example
 * rowProblem({ v: 3 }); // 'unknown format version 3 (expected "v": 2, or 1 of an older deploy)'
 */
export function rowProblem(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "not a JSON object";
  const row = value as Record<string, unknown>;
  if (row.v !== SAMPLE_ROW_VERSION && row.v !== 1)
    return `unknown format version ${JSON.stringify(row.v)} (expected "v": ${SAMPLE_ROW_VERSION}, or 1 of an older deploy)`;
  if (!Number.isSafeInteger(row.t) || (row.t as number) < 0) return '"t" must be a non-negative integer (epoch ms)';
  if (typeof row.domain !== "string") return '"domain" must be a string';
  if (!Number.isSafeInteger(row.cost) || (row.cost as number) < 0) return '"cost" must be a non-negative integer';
  if (!Array.isArray(row.descriptors)) return '"descriptors" must be an array';
  for (const [i, d] of row.descriptors.entries()) {
    const problem = descriptorProblem(d);
    if (problem !== undefined) return `descriptors[${i}]: ${problem}`;
  }
  return undefined;
}

function descriptorProblem(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null) return "not an object";
  const d = value as Record<string, unknown>;
  if (!Array.isArray(d.entries)) return '"entries" must be an array';
  for (const e of d.entries as unknown[]) {
    const entry = e as Record<string, unknown> | null;
    if (typeof entry !== "object" || entry === null || typeof entry.key !== "string" || typeof entry.value !== "string") {
      return 'each entry must be {"key": string, "value": string}';
    }
  }
  if (typeof d.sampled !== "boolean") return '"sampled" must be true or false';
  if (typeof d.allowed !== "boolean") return '"allowed" must be true or false';
  return undefined;
}

/**
 * Rows sorted by `t`, ties in their given order (the counter's order, when known).
 *
 * @example
 * inClockOrder([{ t: 2 }, { t: 1 }]); // [{ t: 1 }, { t: 2 }]
 */
export function inClockOrder<R extends { readonly t: number }>(rows: R[]): R[] {
  for (let i = 1; i < rows.length; i++)
    if (rows[i].t < rows[i - 1].t)
      return rows
        .map((row, at) => ({ row, at }))
        .sort((a, b) => a.row.t - b.row.t || a.at - b.at)
        .map((x) => x.row);
  return rows;
}
