/**
 * The bench's simulated planet (bench/README.md, "Geography"): three
 * regions A, B and C, each one of Cloudflare's location hints, the `cf` a
 * request of the region carries (so `regionOf` in src/request/location.ts
 * maps it back to that hint), and the one-way delay between any two of
 * them. Pure data and two lookups: the bench workers and the Node harness
 * (bench/lib/geography.mjs) read the same table.
 */
import { hintOfObject } from "../../src/durable/counters/regions.ts";

/** A simulated region. */
export type PlanetRegion = "A" | "B" | "C";

/** Every simulated region, in order. */
export const PLANET_REGIONS: readonly PlanetRegion[] = ["A", "B", "C"];

/** Each region's location hint and the `cf` its requests carry (a colo, continent and country the location table maps to that hint). */
export const PLANET: Readonly<Record<PlanetRegion, { readonly hint: string; readonly cf: Readonly<Record<string, string>> }>> = {
  A: { hint: "enam", cf: { colo: "IAD", continent: "NA", country: "US" } },
  B: { hint: "weur", cf: { colo: "FRA", continent: "EU", country: "DE" } },
  C: { hint: "apac", cf: { colo: "SIN", continent: "AS", country: "SG" } },
};

/** One-way delay in ms between two regions: 5 within a region, A–B 50, A–C and B–C 100. */
const ONE_WAY_MS: Readonly<Record<string, number>> = { AA: 5, BB: 5, CC: 5, AB: 50, BA: 50, AC: 100, CA: 100, BC: 100, CB: 100 };

/**
 * The one-way delay between `from` and `to`.
 *
 * @example
 * oneWayMs("C", "A"); // 100
 */
export function oneWayMs(from: PlanetRegion, to: PlanetRegion): number {
  return ONE_WAY_MS[`${from}${to}`] as number;
}

/**
 * Whether `text` names a simulated region (a service's `BENCH_REGION`).
 *
 * @example
 * isPlanetRegion("B"); // true
 */
export function isPlanetRegion(text: unknown): text is PlanetRegion {
  return text === "A" || text === "B" || text === "C";
}

/**
 * The region a counter object lives in, by its name: a regional copy's
 * hint names it; an object with no hint (a home object, or one whose hint
 * the planet has no region for) is in A, where the service's first users
 * created it.
 *
 * @example
 * objectRegion("bench-geo/shard/7@apac"); // "C"
 * objectRegion("bench-geo/shard/7"); // "A"
 */
export function objectRegion(name: string | undefined): PlanetRegion {
  const hint = name === undefined ? undefined : hintOfObject(name);
  return PLANET_REGIONS.find((r) => PLANET[r].hint === hint) ?? "A";
}

/**
 * Whether the object `name` is a home object (no location hint) rather than a regional copy.
 *
 * @example
 * isHomeObject("bench-geo/shard/7"); // true
 */
export function isHomeObject(name: string | undefined): boolean {
  return name === undefined || hintOfObject(name) === undefined;
}
