/**
 * The location table (docs/placement.md, "Regions"): request.cf to a region,
 * data center first, then country, then continent; nothing known is `local`.
 * Plain: the mapping is a pure function of the cf object. Break tried: EU
 * mapped to eeur in CONTINENT_HINTS (three cases failed).
 */
import { describe, expect, it } from "vitest";
import { COLO_HINTS, CONTINENT_HINTS, COUNTRY_HINTS, regionOf, requestRegion } from "../../src/request/location.ts";
import { hintOfObject, inRegion, isRegion, LOCATION_HINTS, REGIONS } from "../../src/durable/counters/regions.ts";

const IN_WORKERD = navigator.userAgent === "Cloudflare-Workers";

describe("regionOf(request.cf)", () => {
  it.each([
    ["Frankfurt", { colo: "FRA", continent: "EU", country: "DE" }, "weur"],
    ["Ashburn", { colo: "IAD", continent: "NA", country: "US" }, "enam"],
    ["Los Angeles: a western colo overrides its continent", { colo: "LAX", continent: "NA", country: "US" }, "wnam"],
    ["Warsaw: an eastern European country overrides its continent", { colo: "WAW", continent: "EU", country: "PL" }, "eeur"],
    ["Dubai: a Middle East country overrides Asia", { colo: "DXB", continent: "AS", country: "AE" }, "me"],
    ["Singapore", { colo: "SIN", continent: "AS", country: "SG" }, "apac"],
    ["Sydney", { colo: "SYD", continent: "OC", country: "AU" }, "oc"],
    ["São Paulo", { colo: "GRU", continent: "SA", country: "BR" }, "sam"],
    ["Johannesburg", { colo: "JNB", continent: "AF", country: "ZA" }, "afr"],
    ["a colo alone, listed", { colo: "SEA" }, "wnam"],
    ["a continent alone", { continent: "EU" }, "weur"],
  ])("%s", (_name, cf, region) => {
    expect(regionOf(cf)).toBe(region);
  });

  it.each([
    ["no cf (local dev, tests)", undefined],
    ["null", null],
    ["an empty object", {}],
    ["an unknown colo and nothing else", { colo: "XYZ" }],
    ["Tor (country T1, no continent)", { country: "T1" }],
    ["inherited names", { colo: "__proto__", country: "constructor", continent: "toString" }],
    ["values of the wrong type", { colo: 1, country: ["DE"], continent: { EU: true } }],
    ["a string", "FRA"],
  ])("%s is region local", (_name, cf) => {
    expect(regionOf(cf)).toBe("local");
  });

  it("maps every table entry to one of Cloudflare's location hints", () => {
    for (const table of [COLO_HINTS, COUNTRY_HINTS, CONTINENT_HINTS]) for (const hint of table.values()) expect(LOCATION_HINTS).toContain(hint);
    // Every hint but the split ones is some continent's; wnam, eeur and me come from the overrides.
    expect(new Set([...CONTINENT_HINTS.values(), ...COLO_HINTS.values(), ...COUNTRY_HINTS.values()])).toEqual(new Set(LOCATION_HINTS));
  });

  // workerd only: Node's Request refuses credentials in a URL and drops `cf` (the mutation run is plain Node).
  it.skipIf(!IN_WORKERD)("reads the cf object of a Request (workerd takes it in RequestInit)", () => {
    expect(requestRegion(new Request("https://x/", { cf: { colo: "SIN", continent: "AS", country: "SG" } }))).toBe("apac");
    expect(requestRegion(new Request("https://x/"))).toBe("local");
  });
});

describe("regional names", () => {
  it("names a region's copy of a key or object, and an object's hint is its region's", () => {
    expect(REGIONS).toEqual([...LOCATION_HINTS, "local"]);
    for (const region of LOCATION_HINTS) {
      expect(hintOfObject(inRegion("api/shard/17", region))).toBe(region);
      expect(hintOfObject(inRegion('api/key/["api",["user","a@weur"]]', region))).toBe(region);
    }
    expect(hintOfObject(inRegion("api/shard/17", "local"))).toBeUndefined();
  });

  it("gives global objects no hint, whatever their values hold", () => {
    expect(hintOfObject("api/shard/17")).toBeUndefined();
    // A per_key global name ends in its JSON key, so a value ending in "@weur" is no region.
    expect(hintOfObject('api/key/["api",["user","x@weur"]]')).toBeUndefined();
  });

  it("accepts only the fixed regions", () => {
    expect(isRegion("weur")).toBe(true);
    expect(isRegion("local")).toBe(true);
    for (const text of ["", "WEUR", "__proto__", "eu", "apac-ne"]) expect(isRegion(text)).toBe(false);
  });
});
