/**
 * The bench's simulated planet (bench/README.md, "Geography"): each
 * region's `cf` lands in its region through floodgate's own location table,
 * objects are placed by their names, the delay matrix is the documented
 * one, and the delayed binding reaches the real objects, telling of every
 * call by the object's name. (Breaks tried: C's `cf` with continent "EU"
 * fails the first test; objectRegion ignoring the hint fails the second;
 * delayedCounters not passing the name fails the last.)
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { objectRegion, isHomeObject, oneWayMs, PLANET, PLANET_REGIONS } from "../../bench/workers/planet.ts";
import { delayedCounters } from "../../bench/workers/round-trip.ts";
import type { Env } from "../../src/config.ts";
import { counterStub, inRegion } from "../../src/durable/counters/regions.ts";
import { regionOf } from "../../src/request/location.ts";
import { perHour } from "../support/limits.ts";

describe("the simulated planet", () => {
  it("gives each region a cf that floodgate's location table maps to that region's hint", () => {
    for (const region of PLANET_REGIONS) expect(regionOf(PLANET[region].cf)).toBe(PLANET[region].hint);
    expect(new Set(PLANET_REGIONS.map((r) => PLANET[r].hint)).size).toBe(3);
  });

  it("places a regional copy in its hint's region and every other object in A", () => {
    const home = "bench-geo/shard/7";
    for (const region of PLANET_REGIONS) {
      expect(objectRegion(inRegion(home, PLANET[region].hint as "enam"))).toBe(region);
      expect(isHomeObject(inRegion(home, PLANET[region].hint as "enam"))).toBe(false);
    }
    expect(objectRegion(home)).toBe("A");
    expect(isHomeObject(home)).toBe(true);
    // A hint the planet has no region for, and no name at all: in A.
    expect(objectRegion(inRegion(home, "oc"))).toBe("A");
    expect(objectRegion(undefined)).toBe("A");
  });

  it("has the documented one-way delays, the same both ways", () => {
    const expected = { AA: 5, BB: 5, CC: 5, AB: 50, AC: 100, BC: 100 };
    for (const [pair, ms] of Object.entries(expected)) {
      const [a, b] = pair.split("") as ["A", "B"];
      expect([oneWayMs(a, b), oneWayMs(b, a)]).toEqual([ms, ms]);
    }
  });

  it("reaches the real objects through the delayed binding (with a hint too) and tells of each call by name and of its realized wait", async () => {
    const heard: (string | undefined)[] = [];
    const waited: number[] = [];
    const counters = delayedCounters(
      (env as unknown as Env).COUNTERS,
      () => 1,
      (name) => heard.push(name),
      (name, waitedMs) => {
        expect(name).toBe(heard.at(-1));
        waited.push(waitedMs);
      },
    );
    const name = inRegion(`planet-test/${Date.now()}`, "apac");
    const key = `${name}/k`;
    const stub = counterStub(counters, name);
    const [first] = await stub.decide([{ key, limits: [perHour(2)], cost: 1 }]);
    const [second] = await stub.decide([{ key, limits: [perHour(2)], cost: 1 }]);
    const [third] = await stub.decide([{ key, limits: [perHour(2)], cost: 1 }]);
    expect([first?.allowed, second?.allowed, third?.allowed]).toEqual([true, true, false]);
    expect(heard).toEqual([name, name, name]);
    // What each call's two 1 ms waits really took: at least the nominal round trip, told once per answer.
    expect(waited).toHaveLength(3);
    for (const ms of waited) expect(ms).toBeGreaterThanOrEqual(2);
  });
});
