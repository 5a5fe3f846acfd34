/**
 * Regions and the objects of per-region limits (docs/placement.md). A
 * region is one of Cloudflare's Durable Object location hints, or `local`
 * for a request with no known location (local dev, tests). A counter with
 * `scope: "region"` has one copy per region: its key and its object name
 * carry the region, and its object is created with the region's hint.
 */

import { REGION_SEPARATOR, inRegion as storedInRegion } from "../../stored/object-names.ts";

/** What `counterStub` needs of a namespace (`env.COUNTERS`, or a wrapper a bench puts around it). */
export interface CounterNamespace {
  getByName(name: string, options?: DurableObjectNamespaceGetDurableObjectOptions): unknown;
}

/** Cloudflare's Durable Object location hints, one per region. */
export const LOCATION_HINTS = ["wnam", "enam", "sam", "weur", "eeur", "apac", "oc", "afr", "me"] as const;

/** A Durable Object location hint. */
export type LocationHint = (typeof LOCATION_HINTS)[number];

/** The region of a request with no known location: one region, whose objects get no hint. */
export const LOCAL_REGION = "local";

/** Where a request arrived, coarsely: a location hint, or `local`. */
export type Region = LocationHint | typeof LOCAL_REGION;

/** Every region, in the order the docs list them. */
export const REGIONS: readonly Region[] = [...LOCATION_HINTS, LOCAL_REGION];

const HINTS: ReadonlySet<string> = new Set(LOCATION_HINTS);
const REGION_SET: ReadonlySet<string> = new Set(REGIONS);

// The region suffix is a stored format (src/stored/object-names.ts).
const SEPARATOR = REGION_SEPARATOR;

/**
 * Whether `text` names a region (client input such as the admin API's `region=` is checked with it).
 *
 * @example
 * isRegion("weur"); // true
 * isRegion("__proto__"); // false
 */
export function isRegion(text: string): text is Region {
  return REGION_SET.has(text);
}

/**
 * The region's copy of a counter key or object name (src/stored/object-names.ts).
 *
 * @example
 * inRegion("api/shard/17", "weur"); // "api/shard/17@weur"
 */
export function inRegion(name: string, region: Region): string {
  return storedInRegion(name, region);
}

/**
 * The location hint an object is created with: its region's, for the
 * objects of per-region limits; none for global ones (Cloudflare then
 * creates an object near its first caller, and it stays there).
 *
 * @example
 * hintOfObject("api/shard/17@weur"); // "weur"
 * hintOfObject("api/shard/17@local"); // undefined
 * hintOfObject("api/shard/17"); // undefined
 */
export function hintOfObject(name: string): LocationHint | undefined {
  const at = name.lastIndexOf(SEPARATOR);
  if (at < 0) return undefined;
  const suffix = name.slice(at + 1);
  return HINTS.has(suffix) ? (suffix as LocationHint) : undefined;
}

/**
 * The home object of a region's copy: its name without the region.
 *
 * @example
 * homeOf("api/shard/17@weur"); // "api/shard/17"
 * homeOf("api/shard/17"); // "api/shard/17"
 */
export function homeOf(name: string): string {
  const at = name.lastIndexOf(SEPARATOR);
  return at >= 0 && REGION_SET.has(name.slice(at + 1)) ? name.slice(0, at) : name;
}

/**
 * The stub of the counter object `name`, with its location hint when it has
 * one. Every caller addresses counter objects through here, so a regional
 * object is created in its region whoever asks first (an admin lookup
 * from another continent included).
 *
 * @example
 * await counterStub(env.COUNTERS, "api/shard/17@weur").decide(calls);
 */
export function counterStub<N extends CounterNamespace>(counters: N, name: string): ReturnType<N["getByName"]> {
  const locationHint = hintOfObject(name);
  return (locationHint === undefined ? counters.getByName(name) : counters.getByName(name, { locationHint })) as ReturnType<N["getByName"]>;
}
