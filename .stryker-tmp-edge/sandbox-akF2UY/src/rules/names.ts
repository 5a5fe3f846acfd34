/**
 * Identities and display names of compiled limits.
 *
 * The id keys counter state, so it depends only on what changes the counting
 * (algorithm, quota, window, burst): renaming a rule or moving it in the file
 * keeps its counters. The name goes into `RateLimit-Policy` structured-field
 * strings, so it is kept to printable ASCII without `"` or `\`.
 */
// @ts-nocheck

import type { AlgorithmName } from "../algorithms/types.ts";
import type { Unit } from "./types.ts";

const ALGORITHM_CODES: Readonly<Record<AlgorithmName, string>> = {
  token_bucket: "tb",
  leaky_bucket: "lb",
  fixed_window: "fw",
  sliding_window_log: "swl",
  sliding_window_counter: "swc",
  gcra: "gcra",
};

const UNIT_SUFFIX: Readonly<Record<Unit, string>> = {
  second: "s",
  minute: "m",
  hour: "h",
  day: "d",
  week: "w",
  month: "mo",
  year: "y",
};

/** Characters a structured-field string may carry without escaping. */
export const SAFE_NAME = /^[\x20\x21\x23-\x5B\x5D-\x7E]+$/;

/**
 * Stable id of a limit's counting parameters.
 *
 * @example
 * limitId("token_bucket", 1, 1000, 5); // "tb:1:1000:5"
 */
export function limitId(algorithm: AlgorithmName, limit: number, windowMs: number, burst: number): string {
  return `${ALGORITHM_CODES[algorithm]}:${limit}:${windowMs}:${burst}`;
}

/**
 * Replace every character that is unsafe in a structured-field string.
 *
 * @example
 * sanitizeName('say "hi"'); // "say _hi_"
 */
export function sanitizeName(text: string): string {
  return text.replace(/[^\x20\x21\x23-\x5B\x5D-\x7E]/g, "_");
}

/**
 * Readable label of a tree node, in the `k=v,k2` form the admin API uses for descriptors.
 *
 * @example
 * descriptorLabel("path=/login", "remote_address", undefined); // "path=/login,remote_address"
 */
export function descriptorLabel(parent: string, key: string, value: string | undefined): string {
  const own = value === undefined ? key : `${key}=${value}`;
  return parent === "" ? own : `${parent},${own}`;
}

/**
 * Name for a limit the rules did not name: its node label and quota.
 *
 * @example
 * derivedName("remote_address", 60, "minute", 1); // "remote_address:60/1m"
 */
export function derivedName(label: string, requestsPerUnit: number, unit: Unit, unitMultiplier: number): string {
  return sanitizeName(`${label}:${requestsPerUnit}/${unitMultiplier}${UNIT_SUFFIX[unit]}`);
}
