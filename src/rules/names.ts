/**
 * Identities and display names of compiled limits.
 *
 * The id keys counter state, so it depends only on what changes the counting
 * (algorithm, quota, window, burst): renaming a rule or moving it in the file
 * keeps its counters. The name goes into `RateLimit-Policy` structured-field
 * strings, so it is kept to printable ASCII without `"` or `\`.
 */
import type { Unit } from "./types.ts";

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

// Limit ids key counter state across deploys: a stored format (docs/stored-formats.md).
export { limitId } from "../stored/counter-ids.ts";

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
