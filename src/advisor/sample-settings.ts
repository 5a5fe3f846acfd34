/**
 * The traffic sample's settings (docs/advisor.md, "Sample"): the share of
 * keys sampled, the rows kept per domain and how long a row is kept, as the
 * sampler and the sample's store use them. Their `[vars]` (SAMPLE_*) are
 * rows of the settings table (src/config.ts, SETTINGS), read once with the
 * others; their defaults fit the Workers Free plan's limits.
 */
import type { Settings } from "../config.ts";

/** What the sample is kept by. */
export interface SampleSettings {
  /** SAMPLE_KEY_RATE: the share of descriptor keys sampled (0: no sample; 1: every request). */
  readonly keyRate: number;
  /** SAMPLE_MAX_ROWS: most rows kept per domain; the oldest go first. */
  readonly maxRows: number;
  /** SAMPLE_RETENTION_HOURS, in ms: rows older than this are dropped. */
  readonly retentionMs: number;
}

const HOUR_MS = 60 * 60 * 1000;

/**
 * The sample's settings out of an isolate's settings.
 *
 * @example
 * sampleSettings(readSettings({ SAMPLE_KEY_RATE: "0.5" })); // { keyRate: 0.5, maxRows: 20000, retentionMs: 604800000 }
 */
export function sampleSettings(settings: Pick<Settings, "sampleKeyRate" | "sampleMaxRows" | "sampleRetentionHours">): SampleSettings {
  return { keyRate: settings.sampleKeyRate, maxRows: settings.sampleMaxRows, retentionMs: settings.sampleRetentionHours * HOUR_MS };
}
