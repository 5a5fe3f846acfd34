/**
 * Where a request arrived, from the edge's `request.cf`, as a region
 * (docs/placement.md, "Regions"). The tables below are the one place that
 * maps Cloudflare's locations to Durable Object location hints: first the
 * data center (`cf.colo`, where the request reached Cloudflare) when it is
 * listed, then the client's country, then the client's continent. A request
 * with none of these known (local dev, tests, a Worker calling with a Request
 * of its own) is in region `local`.
 */
import { LOCAL_REGION, type LocationHint, type Region } from "../durable/counters/regions.ts";

/** Data centers whose continent's default hint would be the wrong side of it: North America's west. */
export const COLO_HINTS: ReadonlyMap<string, LocationHint> = new Map(
  ["SEA", "PDX", "SFO", "SJC", "SMF", "LAX", "SAN", "LAS", "PHX", "SLC", "DEN", "ABQ", "YVR", "YYC", "HNL", "ANC"].map((colo) => [colo, "wnam"]),
);

/** Countries whose continent's default hint is not the nearest: the Middle East (continent AS) and eastern Europe (EU). */
export const COUNTRY_HINTS: ReadonlyMap<string, LocationHint> = new Map([
  ...["AE", "BH", "IL", "IQ", "IR", "JO", "KW", "LB", "OM", "PS", "QA", "SA", "SY", "YE"].map((c) => [c, "me"] as const),
  ...["BG", "BY", "CZ", "EE", "HU", "LT", "LV", "MD", "PL", "RO", "RU", "SK", "UA"].map((c) => [c, "eeur"] as const),
]);

/** `cf.continent` to a location hint. */
export const CONTINENT_HINTS: ReadonlyMap<string, LocationHint> = new Map([
  ["NA", "enam"],
  ["SA", "sam"],
  ["EU", "weur"],
  ["AS", "apac"],
  ["OC", "oc"],
  ["AN", "oc"],
  ["AF", "afr"],
]);

/**
 * The region of a request's `cf` object. Only listed values count (Maps,
 * so no inherited name such as `__proto__` matches), whatever the object
 * holds: the set of regions stays the fixed one of docs/placement.md.
 *
 * @example
 * regionOf({ colo: "FRA", continent: "EU", country: "DE" }); // "weur"
 * regionOf({ colo: "LAX", continent: "NA", country: "US" }); // "wnam"
 * regionOf(undefined); // "local"
 */
export function regionOf(cf: unknown): Region {
  if (typeof cf !== "object" || cf === null) return LOCAL_REGION;
  const { colo, country, continent } = cf as Record<string, unknown>;
  // A value that is not a string is no key of these maps of strings.
  return COLO_HINTS.get(colo as string) ?? COUNTRY_HINTS.get(country as string) ?? CONTINENT_HINTS.get(continent as string) ?? LOCAL_REGION;
}

/**
 * The region `request` arrived in (its `cf` read once).
 *
 * @example
 * requestRegion(new Request("https://x/", { cf: { colo: "SIN", continent: "AS", country: "SG" } })); // "apac"
 */
export function requestRegion(request: Request): Region {
  return regionOf(request.cf);
}
