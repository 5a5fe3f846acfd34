/**
 * The traffic sample's settings (docs/advisor.md, "Sample"), read from
 * `[vars]`: the share of keys sampled, the rows kept per domain and how long
 * a row is kept. Their defaults fit the Workers Free plan's limits
 * (docs/advisor.md, "Sample").
 */
import { ConfigError, type Env } from "../config.ts";

/** What the sample is kept by. */
export interface SampleSettings {
  /** SAMPLE_KEY_RATE: the share of descriptor keys sampled (0: no sample; 1: every request). */
  readonly keyRate: number;
  /** SAMPLE_MAX_ROWS: most rows kept per domain; the oldest go first. */
  readonly maxRows: number;
  /** SAMPLE_RETENTION_HOURS, in ms: rows older than this are dropped. */
  readonly retentionMs: number;
}

/** The defaults, and the bounds a value must keep. */
export const SAMPLE_SETTINGS = {
  keyRate: { variable: "SAMPLE_KEY_RATE", fallback: 0.1, range: [0, 1] },
  maxRows: { variable: "SAMPLE_MAX_ROWS", fallback: 20_000, range: [0, 200_000] },
  retentionHours: { variable: "SAMPLE_RETENTION_HOURS", fallback: 168, range: [1, 24 * 90] },
} as const;

const HOUR_MS = 60 * 60 * 1000;

/**
 * The sample's settings in `env`, defaults for those unset. Throws
 * ConfigError naming the variable of a value out of its bounds.
 *
 * @example
 * sampleSettings({ SAMPLE_KEY_RATE: "0.5" } as Env); // { keyRate: 0.5, maxRows: 20000, retentionMs: 604800000 }
 */
export function sampleSettings(env: Pick<Env, "SAMPLE_KEY_RATE" | "SAMPLE_MAX_ROWS" | "SAMPLE_RETENTION_HOURS">): SampleSettings {
  const { keyRate, maxRows, retentionHours } = SAMPLE_SETTINGS;
  return {
    keyRate: numberIn(env.SAMPLE_KEY_RATE, keyRate, false),
    maxRows: numberIn(env.SAMPLE_MAX_ROWS, maxRows, true),
    retentionMs: numberIn(env.SAMPLE_RETENTION_HOURS, retentionHours, true) * HOUR_MS,
  };
}

function numberIn(given: string | undefined, row: { variable: string; fallback: number; range: readonly [number, number] }, whole: boolean): number {
  const text = (given ?? "").trim();
  if (text === "") return row.fallback;
  const value = Number(text);
  const [min, max] = row.range;
  if (!Number.isFinite(value) || (whole && !Number.isInteger(value)) || value < min || value > max) {
    throw new ConfigError(`${row.variable} must be a ${whole ? "whole number" : "number"} from ${min} to ${max}, got ${JSON.stringify(given)}`);
  }
  return value;
}
